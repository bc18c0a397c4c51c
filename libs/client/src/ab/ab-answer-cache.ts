/**
 * The cache of A/B answers: one boolean per flag, user id and attributes,
 * valid for one revision of the service (PROTOCOL §7).
 *
 * @packageDocumentation
 */
import type { Clock } from '../util/timers.js';
import type { ResolvedAbCache } from './ab-cache-options.js';

/**
 * Estimated bytes of one cached answer besides the characters of its flag
 * key, user id and attributes: its node, its user's entry, attribute pairs
 * and map slot, the strings' headers. Kept at the upper end of what the
 * A/B cache benchmark measures (docs/benchmarks.md, "A/B answer cache"), so
 * `maxBytes` is never exceeded; 2 bytes per character over-estimates
 * one-byte strings on purpose.
 */
export const AB_ENTRY_OVERHEAD_BYTES = 360;

/**
 * The estimated memory of one answer, in bytes: {@link AB_ENTRY_OVERHEAD_BYTES}
 * plus 2 per character of the flag key, the user id and the attributes'
 * names and values (`pairs`: name, value, name, value…).
 */
export function abEntryBytes(flagKey: string, userId: string, pairs: readonly string[]): number {
  let characters = flagKey.length + userId.length;
  for (const text of pairs) characters += text.length;
  return AB_ENTRY_OVERHEAD_BYTES + 2 * characters;
}

/**
 * Attributes as a cache entry keeps them: name, value, name, value… (the
 * order does not matter). The attributes sent: strings only.
 */
export function abAttributePairs(attributes: Readonly<Record<string, string>>): readonly string[] {
  const names = Object.keys(attributes);
  if (names.length === 0) return NO_PAIRS;
  // Sized once: an array grown by push() keeps room for 17 elements, for every answer kept.
  const pairs = new Array<string>(2 * names.length);
  names.forEach((name, i) => {
    pairs[2 * i] = name;
    pairs[2 * i + 1] = attributes[name]!;
  });
  return pairs;
}

const NO_PAIRS: readonly string[] = Object.freeze([]);

/**
 * Whether `attributes` (`count` of them sent, i.e. strings) are those of
 * `pairs`: compared as data, whatever their order; nothing is built.
 */
function sameAttributes(pairs: readonly string[], attributes: AbAttributes, count: number): boolean {
  if (pairs.length !== 2 * count) return false;
  if (count === 0) return true;
  for (let i = 0; i < pairs.length; i += 2) {
    if (!Object.prototype.hasOwnProperty.call(attributes, pairs[i]!) || attributes![pairs[i]!] !== pairs[i + 1])
      return false;
  }
  return true;
}

/** The value of `name` in `pairs`, or `undefined`. */
function valueIn(pairs: readonly string[], name: string): string | undefined {
  for (let i = 0; i < pairs.length; i += 2) if (pairs[i] === name) return pairs[i + 1];
  return undefined;
}

/** Whether two sets of pairs (see {@link abAttributePairs}) hold the same attributes, in any order. */
export function samePairs(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < b.length; i += 2) if (valueIn(a, b[i]!) !== b[i + 1]) return false;
  return true;
}

/** Attributes as the app gives them (checked: strings, or `null`/`undefined` for unset), or none. */
export type AbAttributes = Readonly<Record<string, unknown>> | undefined;

/** The answers of one user id with one set of attributes. */
interface UserEntry {
  readonly userId: string;
  readonly pairs: readonly string[];
  /** Its answers, linked by `sibling` (no array: most users have one or two). */
  answers: AnswerNode | undefined;
  /** Another set of attributes of the same user id. */
  next: UserEntry | undefined;
}

/** One answer, in the cache's list, least recently used first. */
interface AnswerNode {
  readonly flagKey: string;
  readonly user: UserEntry;
  readonly bytes: number;
  answer: boolean;
  storedAtMs: number;
  older: AnswerNode | undefined;
  newer: AnswerNode | undefined;
  /** The next answer of the same user entry. */
  sibling: AnswerNode | undefined;
}

/**
 * Answers of one revision, least recently used first. Looked up by user id
 * (one map lookup), then attributes compared as data and the flag key among
 * that user's answers: no key is built or hashed for a lookup. A lookup at
 * another revision drops every answer at once; an answer older than
 * `maxAgeMs` is dropped when met; `maxEntries` and `maxBytes` evict from the
 * least recently used end. Errors are never stored: only booleans the
 * service answered.
 */
export class AbAnswerCache {
  readonly #users = new Map<string, UserEntry>();
  #oldest: AnswerNode | undefined;
  #newest: AnswerNode | undefined;
  #size = 0;
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
    return this.#size;
  }

  /** Estimated memory of the answers kept now, in bytes (see {@link abEntryBytes}). */
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
    if (this.#size === 0) return;
    this.#users.clear();
    this.#oldest = this.#newest = undefined;
    this.#size = 0;
    this.#bytes = 0;
    this.#invalidations++;
  }

  /**
   * The answer for `flagKey`, `userId` and `attributes` at the cache's
   * revision, if it is younger than `maxAgeMs` at `nowMs`; a hit becomes
   * the most recently used.
   *
   * @param count - how many of `attributes` are sent (strings; `null` and `undefined` are unset).
   */
  get(
    flagKey: string,
    userId: string,
    attributes: AbAttributes,
    count: number,
    nowMs: number = this.clock.now(),
  ): boolean | undefined {
    const node = this.#find(flagKey, this.#user(userId, attributes, count));
    if (node === undefined) return undefined;
    if (nowMs - node.storedAtMs >= this.limits.maxAgeMs) {
      this.#remove(node);
      this.#expirations++;
      return undefined;
    }
    this.#unlink(node);
    this.#append(node);
    return node.answer;
  }

  /**
   * Stores an answer the service gave at `revision`. Ignored when the cache
   * has moved to another revision since the question was asked.
   *
   * @param pairs - the attributes sent (see {@link abAttributePairs}).
   */
  set(revision: number, flagKey: string, userId: string, pairs: readonly string[], answer: boolean): void {
    if (revision !== this.#revision) return;
    const bytes = abEntryBytes(flagKey, userId, pairs);
    if (bytes > this.limits.maxBytes) return;
    let user = this.#users.get(userId);
    while (user !== undefined && !samePairs(user.pairs, pairs)) user = user.next;
    const known = this.#find(flagKey, user);
    if (known !== undefined) {
      known.answer = answer;
      known.storedAtMs = this.clock.now();
      this.#unlink(known);
      this.#append(known);
      return;
    }
    if (user === undefined) {
      user = { userId, pairs, answers: undefined, next: this.#users.get(userId) };
      this.#users.set(userId, user);
    }
    const node: AnswerNode = {
      flagKey,
      user,
      bytes,
      answer,
      storedAtMs: this.clock.now(),
      older: undefined,
      newer: undefined,
      sibling: user.answers,
    };
    user.answers = node;
    this.#append(node);
    this.#size++;
    this.#bytes += bytes;
    while (this.#size > this.limits.maxEntries || this.#bytes > this.limits.maxBytes) {
      this.#remove(this.#oldest!);
      this.#evictions++;
    }
  }

  #user(userId: string, attributes: AbAttributes, count: number): UserEntry | undefined {
    let user = this.#users.get(userId);
    while (user !== undefined && !sameAttributes(user.pairs, attributes, count)) user = user.next;
    return user;
  }

  #find(flagKey: string, user: UserEntry | undefined): AnswerNode | undefined {
    let node = user?.answers;
    while (node !== undefined && node.flagKey !== flagKey) node = node.sibling;
    return node;
  }

  #append(node: AnswerNode): void {
    node.older = this.#newest;
    node.newer = undefined;
    if (this.#newest === undefined) this.#oldest = node;
    else this.#newest.newer = node;
    this.#newest = node;
  }

  #unlink(node: AnswerNode): void {
    if (node.older === undefined) this.#oldest = node.newer;
    else node.older.newer = node.newer;
    if (node.newer === undefined) this.#newest = node.older;
    else node.newer.older = node.older;
  }

  /** Drops one answer, and its user's entry once it holds none. */
  #remove(node: AnswerNode): void {
    this.#unlink(node);
    this.#size--;
    this.#bytes -= node.bytes;
    const { user } = node;
    if (user.answers === node) user.answers = node.sibling;
    else {
      let before = user.answers;
      while (before !== undefined && before.sibling !== node) before = before.sibling;
      if (before !== undefined) before.sibling = node.sibling;
    }
    if (user.answers !== undefined) return;
    const first = this.#users.get(user.userId);
    if (first === user) {
      if (user.next === undefined) this.#users.delete(user.userId);
      else this.#users.set(user.userId, user.next);
      return;
    }
    let before = first;
    while (before !== undefined && before.next !== user) before = before.next;
    if (before !== undefined) before.next = user.next;
  }
}
