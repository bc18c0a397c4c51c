/**
 * A/B evaluation through the answer cache: answers reused at the same
 * revision, concurrent misses coalesced, the rest sent.
 *
 * @packageDocumentation
 */
import { AbAnswerCache, abAttributePairs, samePairs, type AbAttributes } from './ab-answer-cache.js';
import {
  MAX_AB_KEYS_PER_CALL,
  checkAbKeys,
  countAbAttributes,
  planAbEvaluation,
  type AbContext,
  type AbPlan,
  type AbResults,
} from '@vane/client-core';
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

/**
 * A call in flight for one user id and one set of attributes, at one
 * revision: what a concurrent question for one of its flags waits for.
 * Found the way the cache finds answers (by user id, then attributes
 * compared as data), so a miss builds no key string.
 */
interface Flight {
  readonly revision: number;
  /** The attributes sent (see `abAttributePairs`). */
  readonly pairs: readonly string[];
  /** The flags it asks. */
  readonly keys: readonly string[];
  /** Settles once the service's answers are stored in the cache (the asker's results). */
  answers: Promise<AbResults> | undefined;
  /** What the service answered, once it did. */
  got: AbResults | undefined;
  /** Another call in flight for the same user id. */
  next: Flight | undefined;
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
  /** Calls in flight by user id (each the head of its user's list). */
  readonly #inFlight = new Map<string, Flight>();
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
    const pairs = abAttributePairs(attributes);
    const count = pairs.length / 2;
    const now = this.#clock.now();
    // Looked up only while some call is in flight: a lone miss walks no list.
    const flights = this.#inFlight.size === 0 ? undefined : this.#inFlight.get(userId);
    let waits: Promise<unknown>[] | undefined;
    let missing: string[] | undefined;
    for (const batch of plan.batches) {
      for (const flagKey of batch) {
        const cached = cache.get(flagKey, userId, attributes, count, now);
        if (cached !== undefined) {
          this.#hits++;
          results[flagKey] = cached;
          continue;
        }
        const flight = flightAsking(flights, flagKey, pairs, revision);
        if (flight !== undefined) {
          this.#coalesced++;
          (waits ??= []).push(flight.answers!.then(() => void (results[flagKey] = flight.got![flagKey] === true)));
          continue;
        }
        (missing ??= []).push(flagKey);
      }
    }
    const asked = missing === undefined ? undefined : this.#ask(missing, userId, attributes, pairs, revision, results);
    if (waits === undefined) return asked ?? Promise.resolve(results);
    if (asked !== undefined) waits.push(asked);
    return (waits.length === 1 ? waits[0]! : Promise.all(waits)).then(() => results);
  }

  /**
   * Asks the service for `keys` (none cached nor in flight), in flight until
   * it answers: the answers are stored in the cache and written into
   * `results` before anyone waiting for them resumes. A failure is never
   * cached: the asker and everyone waiting get it.
   */
  #ask(
    keys: readonly string[],
    userId: string,
    attributes: Record<string, string>,
    pairs: readonly string[],
    revision: number,
    results: Record<string, boolean>,
  ): Promise<AbResults> {
    const cache = this.#cache!;
    this.#misses += keys.length;
    // The keys are distinct and defined (they come from a plan): one batch unless there are too many.
    const plan = keys.length <= MAX_AB_KEYS_PER_CALL ? { batches: [keys], keys } : planAbEvaluation(keys, () => true);
    const flight: Flight = {
      revision,
      pairs,
      keys,
      answers: undefined,
      got: undefined,
      next: this.#inFlight.get(userId),
    };
    this.#inFlight.set(userId, flight);
    flight.answers = this.#send(plan, userId, attributes).then(
      (got) => {
        this.#landed(userId, flight);
        flight.got = got;
        for (const flagKey of keys) {
          const answer = got[flagKey] === true;
          results[flagKey] = answer;
          cache.set(revision, flagKey, userId, pairs, answer);
        }
        return results;
      },
      (err: unknown) => {
        this.#landed(userId, flight);
        throw err;
      },
    );
    return flight.answers;
  }

  /** Takes a call that answered (or failed) out of its user's list. */
  #landed(userId: string, flight: Flight): void {
    const first = this.#inFlight.get(userId);
    if (first === flight) {
      if (flight.next === undefined) this.#inFlight.delete(userId);
      else this.#inFlight.set(userId, flight.next);
      return;
    }
    let before = first;
    while (before !== undefined && before.next !== flight) before = before.next;
    if (before !== undefined) before.next = flight.next;
  }
}

/** The call among `flights` (one user id's) that asks `flagKey` with the same attributes at `revision`, if any. */
function flightAsking(
  flights: Flight | undefined,
  flagKey: string,
  pairs: readonly string[],
  revision: number,
): Flight | undefined {
  for (let flight = flights; flight !== undefined; flight = flight.next) {
    if (flight.revision === revision && flight.keys.includes(flagKey) && samePairs(flight.pairs, pairs)) return flight;
  }
  return undefined;
}
