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
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
    if (!jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}
