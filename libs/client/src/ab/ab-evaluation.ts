/**
 * A/B evaluation: validation of the user context and planning of the calls
 * (PROTOCOL §7). Pure; the client sends what these functions produce.
 *
 * @packageDocumentation
 */
import { InvalidArgumentError } from '../errors.js';

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

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (v instanceof Date) return 'Date';
  return typeof v;
}

/**
 * Validates a user context and returns the attributes to send: strings
 * kept, `null`/`undefined` dropped.
 *
 * @throws InvalidArgumentError - naming the attribute and the type received.
 */
export function normalizeAbContext(context: AbContext): { userId: string; attributes: Record<string, string> } {
  if (typeof context !== 'object' || context === null)
    throw new InvalidArgumentError(`evaluateAb: context must be an object, got ${typeName(context)}`);
  if (typeof context.userId !== 'string' || context.userId === '') {
    throw new InvalidArgumentError(`evaluateAb: userId must be a non-empty string, got ${typeName(context.userId)}`);
  }
  // No prototype: an attribute named `__proto__` (e.g. from parsed JSON) is kept and sent like any other.
  const attributes: Record<string, string> = Object.create(null) as Record<string, string>;
  const given: unknown = context.attributes;
  if (given === undefined || given === null) return { userId: context.userId, attributes };
  if (typeof given !== 'object' || Array.isArray(given))
    throw new InvalidArgumentError(`evaluateAb: attributes must be an object of strings, got ${typeName(given)}`);
  for (const [name, value] of Object.entries(given as Record<string, unknown>)) {
    if (value === null || value === undefined) continue;
    if (typeof value !== 'string') {
      throw new InvalidArgumentError(`evaluateAb: attribute "${name}" must be a string, got ${typeName(value)}`);
    }
    attributes[name] = value;
  }
  return { userId: context.userId, attributes };
}

/**
 * The canonical key of a user context: the same user id and the same
 * attributes give the same string, whatever the order in which the
 * attributes were written; anything else gives another. Attributes are
 * those {@link normalizeAbContext} returns (strings only).
 *
 * @example
 * ```ts
 * abContextKey('u-1', { plan: 'pro', country: 'DE' }) === abContextKey('u-1', { country: 'DE', plan: 'pro' }); // true
 * ```
 */
export function abContextKey(userId: string, attributes: Readonly<Record<string, string>>): string {
  const names = Object.keys(attributes).sort();
  const parts: unknown[] = [userId];
  for (const name of names) parts.push(name, attributes[name]);
  return JSON.stringify(parts);
}

/** How an evaluation will be sent. */
export interface AbPlan {
  /** Distinct keys the snapshot knows, in calls of at most {@link MAX_AB_KEYS_PER_CALL}. */
  readonly batches: readonly (readonly string[])[];
  /** Every distinct key asked, in order (the keys of the result). */
  readonly keys: readonly string[];
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
  if (!Array.isArray(keys))
    throw new InvalidArgumentError(`evaluateAb: keys must be an array of strings, got ${typeName(keys)}`);
  const distinct: string[] = [];
  const seen = new Set<string>();
  keys.forEach((key: unknown, i) => {
    if (typeof key !== 'string')
      throw new InvalidArgumentError(`evaluateAb: keys[${i}] must be a string, got ${typeName(key)}`);
    if (!seen.has(key)) {
      seen.add(key);
      distinct.push(key);
    }
  });
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
  const results = typeof doc === 'object' && doc !== null ? (doc as Record<string, unknown>)['results'] : undefined;
  const map =
    typeof results === 'object' && results !== null && !Array.isArray(results)
      ? (results as Record<string, unknown>)
      : {};
  for (const key of asked) {
    into[key] = Object.prototype.hasOwnProperty.call(map, key) && map[key] === true;
  }
}
