import type { ConfigValue } from '../model.js';
import { parseJsonValue } from './primitives.js';
import { fail } from './validation-error.js';

/**
 * Returns `value` when it is a config value (PROTOCOL §4): a string, finite
 * number, boolean, null, or an array whose elements are any JSON. An object
 * is refused with the problem `objects are not config values`.
 */
export function parseConfigValue(value: unknown, path: string): ConfigValue {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    fail(path, 'objects are not config values');
  }
  if (value === undefined) fail(path, 'a config value is required (null is allowed)');
  return parseJsonValue(value, path) as ConfigValue;
}
