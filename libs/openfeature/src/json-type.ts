/**
 * The JSON type of a config value, as both providers' messages name it.
 *
 * @packageDocumentation
 */

/** The JSON type of a config value, as messages name it (`array` and `null` apart from `object`). */
export function jsonTypeOf(value: unknown): 'string' | 'number' | 'boolean' | 'object' | 'array' | 'null' {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' ? type : 'object';
}
