/**
 * Equality of JSON values.
 *
 * @packageDocumentation
 */

/**
 * Whether `a` and `b` are the same JSON value: primitives by value (`5` and
 * `5.0` are one number, `5` and `"5"` are not), arrays by content in order,
 * objects by their own members whatever their order. The one rule used by
 * the client's change events and schema, the Nest observables' dedup, and the
 * local server's "does this write change anything" (which once compared
 * serialised text, so a reordered object made a revision clients then
 * diffed to no change). Recursive: callers bound the depth of what they
 * compare (parsers refuse deep values first).
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  // Two objects, both arrays or both not: the same own keys (an array's are its indexes, so its length) with equal values.
  if (typeof a !== 'object' || typeof b !== 'object' || !a || !b || Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every(
      (k) => Object.hasOwn(b, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
    )
  );
}
