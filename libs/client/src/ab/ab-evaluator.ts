/**
 * A/B evaluation through the answer cache: answers reused at the same
 * revision, concurrent misses coalesced, the rest sent.
 *
 * @packageDocumentation
 */
import { AbAnswerCache, abAnswerKey, abAttributePairs, type AbAttributes } from './ab-answer-cache.js';
import {
  abContextKey,
  checkAbKeys,
  countAbAttributes,
  planAbEvaluation,
  type AbContext,
  type AbPlan,
  type AbResults,
} from './ab-evaluation.js';
import type { ResolvedAbCache } from './ab-cache-options.js';
import type { Clock } from '../util/timers.js';

/** Counters of the cache of A/B answers, as `client.abCacheStats` reads them. */
export interface AbCacheStats {
  /** Whether answers are cached (`abCache: false` turns it off; every count below then stays 0). */
  readonly enabled: boolean;
  /** Answers served from the cache, with no call. */
  readonly hits: number;
  /** Answers asked of the service in a new `evaluate-ab` call. */
  readonly misses: number;
  /** Answers that waited for a call already in flight for the same flag, user and attributes. */
  readonly coalesced: number;
  /** Answers kept now. */
  readonly size: number;
  /** Estimated memory of the answers kept now, in bytes. */
  readonly bytes: number;
  /** Answers dropped to stay within `maxEntries` or `maxBytes`. */
  readonly evictions: number;
  /** Answers dropped because they were older than `maxAgeMs` when asked for. */
  readonly expirations: number;
  /** Times a new revision of the service dropped every answer kept. */
  readonly invalidations: number;
}

/** Sends a planned evaluation: `sendAbEvaluation` on the client's HTTP. */
export type AbSend = (plan: AbPlan, userId: string, attributes: Record<string, string>) => Promise<AbResults>;

/** A call in flight, shared by every answer it carries. */
interface InFlight {
  readonly revision: number;
  /** The service's answers, once stored in the cache. */
  readonly answers: Promise<AbResults>;
}

/**
 * Evaluates A/B flags for one user, answering from the cache what it can.
 * For each flag the snapshot knows: an answer cached at the current
 * revision is used as is; one already being asked (same flag, user id and
 * attributes, same revision) is waited for; the others go out together, in
 * calls of at most 200 keys. What the service answers is cached at the
 * revision the question was asked at; a failure is never cached, and
 * everyone who waited for it gets it. Without a cache every evaluation is
 * sent as asked.
 */
export class AbEvaluator {
  readonly #send: AbSend;
  readonly #cache: AbAnswerCache | undefined;
  readonly #clock: Clock;
  readonly #inFlight = new Map<string, InFlight>();
  #hits = 0;
  #misses = 0;
  #coalesced = 0;

  /**
   * @param send - sends a planned evaluation.
   * @param limits - the cache's bounds, or `undefined` for no cache.
   * @param clock - the client's clock (answers' ages).
   */
  constructor(send: AbSend, limits: ResolvedAbCache | undefined, clock: Clock) {
    this.#send = send;
    this.#clock = clock;
    this.#cache = limits === undefined ? undefined : new AbAnswerCache(limits, clock);
  }

  /** The cache's counters now. */
  get stats(): AbCacheStats {
    const cache = this.#cache;
    return Object.freeze({
      enabled: cache !== undefined,
      hits: this.#hits,
      misses: this.#misses,
      coalesced: this.#coalesced,
      size: cache?.size ?? 0,
      bytes: cache?.bytes ?? 0,
      evictions: cache?.evictions ?? 0,
      expirations: cache?.expirations ?? 0,
      invalidations: cache?.invalidations ?? 0,
    });
  }

  /**
   * The answers of `keys` for the user of `context`, from the cache alone and
   * synchronously: `undefined` unless every key `flags` defines has an answer
   * cached at `revision` (then nothing is counted, and `evaluate` will ask).
   * Keys `flags` does not define are `false`, as {@link AbEvaluator.evaluate}
   * answers them. Counted as hits. No promise, and no allocation but the
   * user's key, each answer's key and the results.
   *
   * @param flags - the flags the snapshot defines (the keys that would be sent).
   * @param revision - the revision of the client's snapshot now.
   * @returns flag key → boolean for every distinct key of `keys` (a null-prototype object), or `undefined`.
   * @throws InvalidArgumentError - for keys or a context `evaluateAb` refuses.
   */
  cached(
    keys: readonly string[],
    context: AbContext,
    flags: ReadonlyMap<string, unknown>,
    revision: number,
  ): AbResults | undefined {
    checkAbKeys(keys);
    const count = countAbAttributes(context);
    const cache = this.#cache;
    if (cache === undefined) return undefined;
    cache.moveTo(revision);
    const now = this.#clock.now();
    const results: Record<string, boolean> = Object.create(null) as Record<string, boolean>;
    let hits = 0;
    for (const flagKey of keys) {
      if (flagKey in results) continue;
      if (!flags.has(flagKey)) {
        results[flagKey] = false;
        continue;
      }
      const answer = cache.get(flagKey, context.userId, context.attributes as AbAttributes, count, now);
      if (answer === undefined) return undefined;
      results[flagKey] = answer;
      hits++;
    }
    this.#hits += hits;
    return results;
  }

  /**
   * Evaluates `plan` for one user at `revision` (the revision of the
   * client's snapshot now).
   *
   * @returns flag key → boolean for every key of the plan (false unless the service said true).
   */
  evaluate(plan: AbPlan, userId: string, attributes: Record<string, string>, revision: number): Promise<AbResults> {
    const cache = this.#cache;
    if (cache === undefined) return this.#send(plan, userId, attributes);
    cache.moveTo(revision);
    const results: Record<string, boolean> = Object.create(null) as Record<string, boolean>;
    for (const key of plan.keys) results[key] = false;
    const contextKey = abContextKey(userId, attributes);
    const pairs = abAttributePairs(attributes);
    const count = pairs.length / 2;
    const now = this.#clock.now();
    let waits: Promise<unknown>[] | undefined;
    let missing: string[] | undefined;
    let missingKeys: string[] | undefined;
    for (const batch of plan.batches) {
      for (const flagKey of batch) {
        const cached = cache.get(flagKey, userId, attributes, count, now);
        if (cached !== undefined) {
          this.#hits++;
          results[flagKey] = cached;
          continue;
        }
        const key = abAnswerKey(flagKey, contextKey);
        const flight = this.#inFlight.get(key);
        if (flight !== undefined && flight.revision === revision) {
          this.#coalesced++;
          (waits ??= []).push(flight.answers.then((answers) => void (results[flagKey] = answers[flagKey] === true)));
          continue;
        }
        (missing ??= []).push(flagKey);
        (missingKeys ??= []).push(key);
      }
    }
    if (missing !== undefined && missingKeys !== undefined) {
      this.#misses += missing.length;
      const asked = missing;
      const keys = missingKeys;
      // One promise per call: answers are stored before anyone waiting for them resumes.
      const answers = this.#send(
        planAbEvaluation(asked, () => true),
        userId,
        attributes,
      ).then((got) => {
        for (const flagKey of asked) {
          const answer = got[flagKey] === true;
          results[flagKey] = answer;
          cache.set(revision, flagKey, userId, pairs, answer);
        }
        return got;
      });
      const flight: InFlight = { revision, answers };
      for (const key of keys) this.#inFlight.set(key, flight);
      const landed = (): void => {
        for (const key of keys) if (this.#inFlight.get(key) === flight) this.#inFlight.delete(key);
      };
      answers.then(landed, landed);
      (waits ??= []).push(answers);
    }
    if (waits === undefined) return Promise.resolve(results);
    if (waits.length === 1) return waits[0]!.then(() => results);
    return Promise.all(waits).then(() => results);
  }
}
