/** How messages describe a value they must not echo. */

const MAX_ECHO = 40;

/**
 * Describes a value's JSON type for a message: `a string`, `a number`,
 * `an object`, `an array`, `null`, `nothing` (absent)... Never the value itself.
 */
export function describeType(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return Number.isFinite(value) ? 'a number' : `a non-finite number (${String(value)})`;
    case 'boolean':
      return 'a boolean';
    case 'object':
      return 'an object';
    default:
      return `a ${typeof value}`;
  }
}

/** Quotes a short, non-secret string (an enum value, a member name) for a message. */
export function quote(text: string): string {
  return JSON.stringify(text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO)}…` : text);
}
