/**
 * `@vane/browser/ab`: A/B answers for the page's user (PROTOCOL §7), an
 * opt-in plug-in. With it, the client's `abFlag`, `evaluateAb` and
 * `setUser` work; the user comes from the client's `user` option, or from a
 * bootstrap's A/B answers.
 *
 * @packageDocumentation
 * @module @vane/browser/ab
 */
export type { VanePlugin, VaneHost, VaneAb } from './plugin.js';
import {
  abContextKey,
  InvalidArgumentError,
  normalizeAbContext,
  planAbEvaluation,
  readAbResults,
  readBootstrapAb,
  type AbResults,
} from '@vane/client-core';
import type { VaneAb, VanePlugin } from './plugin.js';
import type { VaneUser } from './options.js';

type User = { readonly userId: string; readonly attributes: Record<string, string> };

/**
 * The A/B plug-in: pass it as the client's `ab` option. Answers for the
 * page's user are asked once the client has started (the keys `abFlag` was
 * called with, batched: one request per macrotask), asked again on every
 * new revision, and reused for the same flag, user and attributes at the
 * same revision.
 *
 * @example
 * ```ts
 * import { abTesting } from '@vane/browser/ab';
 * const vane = new VaneBrowserClient({ baseUrl, apiKey: 'svp_…', user: { userId: 'u-8812' }, ab: abTesting() });
 * vane.abFlag('new-pricing'); // false until the answer's update
 * ```
 */
export function abTesting(): VanePlugin<VaneAb> {
  return (host) => {
    const { client } = host;
    let user: User | undefined = host.options.user && normalizeAbContext(host.options.user);
    /** Answers for the current user, served by `abFlag` (kept across revisions until re-asked). */
    let answers = new Map<string, boolean>();
    /** Answers per flag, user and attributes at `cacheRevision` (PROTOCOL §7). */
    const cache = new Map<string, boolean>();
    let cacheRevision = -1;
    const asking = new Set<string>();
    let askTimer: ReturnType<typeof setTimeout> | undefined;

    const userKey = (): string | undefined => user && abContextKey(user.userId, user.attributes);
    const remember = (key: string, answer: boolean): boolean => {
      const changed = answers.get(key) !== answer;
      answers.set(key, answer);
      return changed;
    };

    /** Queues a key for the next A/B request (one per macrotask, whatever the number of keys). */
    const ask = (key: string): void => {
      asking.add(key);
      askTimer ??= setTimeout(() => {
        askTimer = undefined;
        const keys = [...asking];
        asking.clear();
        evaluate(keys).catch(host.failed);
      }, 0);
    };

    const evaluate = async (keys: readonly string[], forUser?: VaneUser): Promise<AbResults> => {
      const who = forUser ? normalizeAbContext(forUser) : user;
      if (!who) throw new InvalidArgumentError('evaluateAb: no user');
      const context = abContextKey(who.userId, who.attributes);
      if (cacheRevision !== client.status.revision) {
        cache.clear();
        cacheRevision = client.status.revision;
      }
      const revision = cacheRevision;
      // Filled with no prototype (a flag named `__proto__` is a key like any other), returned as a plain copy.
      const results = Object.create(null) as Record<string, boolean>;
      const plan = planAbEvaluation(keys, (key) => {
        const hit = cache.get(`${key}\0${context}`);
        if (hit !== undefined) results[key] = hit;
        return hit === undefined && !!host.snap()?.flags.has(key);
      });
      for (const batch of plan.batches) {
        const res = await host.post('flags/evaluate-ab', {
          keys: batch,
          user_id: who.userId,
          attributes: who.attributes,
        });
        readAbResults(await res.json(), batch, results);
        if (cacheRevision === revision) for (const key of batch) cache.set(`${key}\0${context}`, results[key]!);
      }
      for (const key of plan.keys) results[key] ??= false;
      // Answers for the page's user are what `abFlag` serves from now on.
      if (context === userKey()) {
        let changed = false;
        for (const key of plan.keys) changed = remember(key, results[key]!) || changed;
        if (changed) host.abChanged();
      }
      return { ...results };
    };

    // A bootstrap's answers are the page's user's when the user matches (or none was given).
    const ab = readBootstrapAb(host.options.bootstrap);
    if (ab && (!user || abContextKey(ab.userId, ab.attributes) === userKey())) {
      user = { userId: ab.userId, attributes: { ...ab.attributes } };
      for (const key of Object.keys(ab.results)) remember(key, ab.results[key] === true);
    }
    // A new revision may change any answer: the keys asked so far are asked again.
    let revision = client.status.revision;
    client.subscribe((update) => {
      // Closed: no answer is asked any more.
      if (client.status.mode === 'closed') clearTimeout(askTimer);
      if (update.revision === revision) return;
      revision = update.revision;
      if (host.started()) for (const key of answers.keys()) ask(key);
    });

    return {
      abFlag(key: string, defaultValue = false): boolean {
        const known = answers.get(key);
        if (known !== undefined) return known;
        if (user && host.started() && client.status.mode !== 'closed') ask(key);
        return defaultValue;
      },
      evaluateAb: evaluate,
      setUser(next: VaneUser | undefined): void {
        const normalized = next && normalizeAbContext(next);
        const asked = [...answers.keys()];
        user = normalized;
        answers = new Map();
        host.abChanged();
        if (normalized && host.started()) for (const key of asked) ask(key);
      },
    };
  };
}
