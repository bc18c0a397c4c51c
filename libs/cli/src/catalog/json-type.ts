/**
 * The TypeScript type of a config's JSON value, as `vane types` writes it.
 *
 * @packageDocumentation
 */

/** Any JSON object: what an object inside an array config is typed as. */
const OBJECT_TYPE = '{ readonly [key: string]: JsonValue }';

/**
 * The type text of a JSON value: `string`, `number`, `boolean`, `null`, an
 * array of the union of its elements' types (`readonly (number | string)[]`);
 * an object inside an array is any JSON object. An empty array is
 * `readonly JsonValue[]`: its elements' type is not known yet.
 */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'object':
      // An object's member names are part of the value (a map of users, of hosts): never written.
      return Array.isArray(value) ? arrayType(value) : OBJECT_TYPE;
    default:
      return 'unknown';
  }
}

function arrayType(values: readonly unknown[]): string {
  if (values.length === 0) return 'readonly JsonValue[]';
  const members = [...new Set(values.map(jsonTypeOf))].sort();
  const element = members.length === 1 ? members[0]! : `(${members.join(' | ')})`;
  return `readonly ${element}[]`;
}
