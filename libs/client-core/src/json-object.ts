/**
 * The shape test every reader of a JSON document in this package uses, the
 * type name its messages give (never the value), and the lenient read of a
 * JSON object's text (error bodies, stream events).
 *
 * @packageDocumentation
 */

/** A JSON object: not `null`, not an array. @internal */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What a value is, for a message: `null`, `array`, `Date`, or its `typeof`. Never the value itself. @internal */
export function typeName(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : v instanceof Date ? 'Date' : typeof v;
}

/** The members of a JSON object's text; none (`{}`) when the text is not one. @internal */
export function parseJsonObject(text: string): Record<string, unknown> {
  try {
    const doc: unknown = JSON.parse(text);
    if (isObject(doc)) return doc;
  } catch {
    // Not JSON: no members.
  }
  return {};
}
