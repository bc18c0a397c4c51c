/**
 * A/B evaluation: validation of the user context and planning of the calls
 * (PROTOCOL §7). Pure; the client sends what these functions produce.
 *
 * @packageDocumentation
 */
import { InvalidArgumentError } from './errors.js';
import { isObject, typeName } from './json-object.js';

/** Most keys one evaluate-ab call may carry. */
export const MAX_AB_KEYS_PER_CALL = 200;

/** The user context of an A/B evaluation. */
export interface AbContext {
  /** Stable user or session identifier used for bucketing. */
  readonly userId: string;
  /**
   * Targeting attributes. Values must be strings; `null` and `undefined`
   * mean unset and are dropped. Anything else is refused before any request
   * (nothing is converted to a string).
   */
  readonly attributes?: Readonly<Record<string, string | null | undefined>>;
}

/** Results of an A/B evaluation: flag key → boolean, for every key asked. */
export type AbResults = Readonly<Record<string, boolean>>;

/** Refuses an argument of an evaluation, naming it and the type received. */
function refuse(what: string, v: unknown): never {
  throw new InvalidArgumentError(`evaluateAb: ${what}, got ${typeName(v)}`);
}

/**
 * Checks a context's shape and user id.
 *
 * @returns the attributes given (not yet checked one by one), or `undefined` for none.
 * @throws InvalidArgumentError
 */
function givenAttributes(context: AbContext): Readonly<Record<string, unknown>> | undefined {
  if (typeof context !== 'object' || context === null) refuse('context must be an object', context);
  if (typeof context.userId !== 'string' || context.userId === '')
    refuse('userId must be a non-empty string', context.userId);
  const given: unknown = context.attributes;
  if (given === undefined || given === null) return undefined;
  if (typeof given !== 'object' || Array.isArray(given)) refuse('attributes must be an object of strings', given);
  return given as Readonly<Record<string, unknown>>;
}

/**
 * Whether an attribute is sent: `true` for a string, `false` for `null` and
 * `undefined` (unset, dropped).
 *
 * @throws InvalidArgumentError - for any other value, naming the attribute and its type.
 */
function isSent(name: string, value: unknown): value is string {
  if (typeof value === 'string') return true;
  if (value === null || value === undefined) return false;
  return refuse(`attribute "${name}" must be a string`, value);
}

/**
 * Validates a user context and returns the attributes to send: strings
 * kept, `null`/`undefined` dropped.
 *
 * @throws InvalidArgumentError - naming the attribute and the type received.
 */
export function normalizeAbContext(context: AbContext): { userId: string; attributes: Record<string, string> } {
  const given = givenAttributes(context);
  const sent: [string, string][] = [];
  if (given !== undefined) {
    for (const name of Object.keys(given)) {
      const value = given[name];
      if (isSent(name, value)) sent.push([name, value]);
    }
  }
  // A plain object (it crosses into bootstraps and React props) whose members are all own:
  // an attribute named `__proto__` (e.g. from parsed JSON) is kept and sent like any other.
  return { userId: context.userId, attributes: Object.fromEntries(sent) };
}

/**
 * Checks a context as `normalizeAbContext` does, without copying it,
 * and counts the attributes that would be sent (strings; `null` and
 * `undefined` are unset): what a cache lookup needs.
 *
 * @throws InvalidArgumentError - naming the attribute and the type received.
 */
export function countAbAttributes(context: AbContext): number {
  const given = givenAttributes(context);
  let count = 0;
  if (given === undefined) return count;
  for (const name in given) {
    if (Object.prototype.hasOwnProperty.call(given, name) && isSent(name, given[name])) count++;
  }
  return count;
}

/** `text` prefixed with its length: strings written one after another this way can be told apart again. */
function counted(text: string): string {
  return `${text.length}:${text}`;
}

/**
 * The canonical key of a user context: the same user id and the same
 * attributes give the same string, whatever the order in which the
 * attributes were written; anything else gives another. Attributes are
 * those `normalizeAbContext` returns (strings only).
 *
 * @example
 * ```ts
 * abContextKey('u-1', { plan: 'pro', country: 'DE' }) === abContextKey('u-1', { country: 'DE', plan: 'pro' }); // true
 * ```
 */
export function abContextKey(userId: string, attributes: Readonly<Record<string, string>>): string {
  // The user id, then each attribute as name and value in the order of their names, every string
  // prefixed with its length: nothing to escape, and no two contexts share a key.
  let key = counted(userId);
  const names = Object.keys(attributes);
  // Attributes are mostly written in the same order by the same code: sort only when they are not in order.
  for (let i = 1; i < names.length; i++) {
    if (names[i - 1]! > names[i]!) {
      names.sort();
      break;
    }
  }
  for (const name of names) key += counted(name) + counted(attributes[name]!);
  return key;
}

/** How an evaluation will be sent. */
export interface AbPlan {
  /** Distinct keys the snapshot knows, in calls of at most {@link MAX_AB_KEYS_PER_CALL}. */
  readonly batches: readonly (readonly string[])[];
  /** Every distinct key asked, in order (the keys of the result). */
  readonly keys: readonly string[];
}

/**
 * Checks the keys of an evaluation: an array of strings.
 *
 * @throws InvalidArgumentError - naming the first element that is not a string.
 */
export function checkAbKeys(keys: readonly string[]): void {
  if (!Array.isArray(keys)) refuse('keys must be an array of strings', keys);
  for (let i = 0; i < keys.length; i++) {
    const key: unknown = keys[i];
    if (typeof key !== 'string') refuse(`keys[${i}] must be a string`, key);
  }
}

/**
 * Plans the calls for `keys`: duplicates sent once, keys the snapshot does
 * not know never sent (they answer `false`), at most `maxPerCall` per call.
 *
 * @throws InvalidArgumentError - when `keys` is not an array of strings.
 */
export function planAbEvaluation(
  keys: readonly string[],
  isKnown: (key: string) => boolean,
  maxPerCall = MAX_AB_KEYS_PER_CALL,
): AbPlan {
  checkAbKeys(keys);
  const distinct = [...new Set(keys)];
  const known = distinct.filter(isKnown);
  const batches: string[][] = [];
  for (let i = 0; i < known.length; i += maxPerCall) batches.push(known.slice(i, i + maxPerCall));
  return { batches, keys: distinct };
}

/**
 * Reads the `results` of one answer: only booleans count, anything missing
 * or not a boolean is `false`.
 */
export function readAbResults(doc: unknown, asked: readonly string[], into: Record<string, boolean>): void {
  const results = isObject(doc) ? doc['results'] : undefined;
  const map = isObject(results) ? results : {};
  // Nothing a JSON object inherits is `true`: no own-member test needed.
  for (const key of asked) into[key] = map[key] === true;
}
