/**
 * The TypeScript type of a config's JSON value, as `vane types` writes it.
 *
 * @packageDocumentation
 */

/**
 * The type text of a JSON value: `string`, `number`, `boolean`, `null`, an
 * array of the union of its elements' types (`readonly (number | string)[]`),
 * an object literal type for objects inside arrays. An empty array is
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
      return Array.isArray(value) ? arrayType(value) : objectType(value as Record<string, unknown>);
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

function objectType(value: Record<string, unknown>): string {
  const keys = Object.keys(value).sort();
  if (keys.length === 0) return '{ readonly [key: string]: JsonValue }';
  return `{ ${keys.map((key) => `readonly ${JSON.stringify(key)}: ${jsonTypeOf(value[key])}`).join('; ')} }`;
}
