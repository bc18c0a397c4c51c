/**
 * The cache of A/B answers: one boolean per flag, user id and attributes,
 * valid for one revision of the service (PROTOCOL §7).
 *
 * @packageDocumentation
 */
import type { Clock } from '../util/timers.js';
import type { ResolvedAbCache } from './ab-cache-options.js';

/**
 * Estimated bytes of one cached answer besides its key's characters: the
 * map's slot (with the slack deletions leave), the entry object, the
 * strings' headers. Measured on Node 20 with 10,000 answers of 55-character
 * keys: 308 to 363 bytes per answer in all, the estimate (250 + 2 × 55 =
 * 360) at the upper end; longer keys cost about 1.2 bytes per character,
 * which 2 per character over-estimates.
 */
export const AB_ENTRY_OVERHEAD_BYTES = 250;

/** The estimated memory of an answer stored under `key`, in bytes (2 per character: the widest string V8 keeps). */
export function abEntryBytes(key: string): number {
  return AB_ENTRY_OVERHEAD_BYTES + 2 * key.length;
}

/**
 * The key of one answer: the flag (prefixed with its length, so that no
 * flag key and user key run into each other), then the user's canonical key
 * (`abContextKey`).
 */
export function abAnswerKey(flagKey: string, contextKey: string): string {
  return `${flagKey.length}:${flagKey}${contextKey}`;
}

interface CachedAnswer {
  readonly answer: boolean;
  readonly storedAtMs: number;
}

/**
 * Answers of one revision, least recently used first. A lookup at another
 * revision drops every answer at once (one `Map.clear()`, no scan); an
 * answer older than `maxAgeMs` is dropped when met; `maxEntries` and
 * `maxBytes` evict from the least recently used end. Errors are never
 * stored: only booleans the service answered.
 */
export class AbAnswerCache {
  readonly #answers = new Map<string, CachedAnswer>();
  #revision: number | undefined;
  #bytes = 0;
  #evictions = 0;
  #expirations = 0;
  #invalidations = 0;

  /**
   * @param limits - age and size bounds.
   * @param clock - the client's clock: ages follow it, so fake time works.
   */
  constructor(
    private readonly limits: ResolvedAbCache,
    private readonly clock: Clock,
  ) {}

  /** Answers kept now. */
  get size(): number {
    return this.#answers.size;
  }

  /** Estimated memory of the answers kept now, in bytes. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Answers dropped to keep within `maxEntries` or `maxBytes`. */
  get evictions(): number {
    return this.#evictions;
  }

  /** Answers dropped because they were older than `maxAgeMs` when asked for. */
  get expirations(): number {
    return this.#expirations;
  }

  /** Times a new revision dropped every answer kept. */
  get invalidations(): number {
    return this.#invalidations;
  }

  /**
   * Makes `revision` the cache's: when it is not already, every answer of
   * the revision before is dropped.
   */
  moveTo(revision: number): void {
    if (revision === this.#revision) return;
    this.#revision = revision;
    if (this.#answers.size === 0) return;
    this.#answers.clear();
    this.#bytes = 0;
    this.#invalidations++;
  }

  /**
   * The answer stored under `key` at the cache's revision, if it is younger
   * than `maxAgeMs` at `nowMs`; a hit becomes the most recently used.
   */
  get(key: string, nowMs: number = this.clock.now()): boolean | undefined {
    const cached = this.#answers.get(key);
    if (cached === undefined) return undefined;
    this.#answers.delete(key);
    if (nowMs - cached.storedAtMs >= this.limits.maxAgeMs) {
      this.#bytes -= abEntryBytes(key);
      this.#expirations++;
      return undefined;
    }
    this.#answers.set(key, cached);
    return cached.answer;
  }

  /**
   * Stores an answer the service gave at `revision`. Ignored when the cache
   * has moved to another revision since the question was asked.
   */
  set(revision: number, key: string, answer: boolean): void {
    if (revision !== this.#revision) return;
    const bytes = abEntryBytes(key);
    if (bytes > this.limits.maxBytes) return;
    if (this.#answers.delete(key)) this.#bytes -= bytes;
    this.#answers.set(key, { answer, storedAtMs: this.clock.now() });
    this.#bytes += bytes;
    while (this.#answers.size > this.limits.maxEntries || this.#bytes > this.limits.maxBytes) {
      const oldest = this.#answers.keys().next().value as string;
      this.#answers.delete(oldest);
      this.#bytes -= abEntryBytes(oldest);
      this.#evictions++;
    }
  }
}
