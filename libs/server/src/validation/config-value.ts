import * as v from 'valibot';
import type { ConfigValue } from '../domain/model.js';
import { jsonValueSchema } from './primitives.js';
import { checkSchema } from './schema-check.js';

/**
 * A config value (PROTOCOL §4): a string, finite number, boolean, null, or
 * an array whose elements are any JSON. An object is refused with the
 * problem `objects are not config values`.
 */
export const configValueSchema = v.pipe(
  v.custom<unknown>(
    (value) => value !== undefined && (typeof value !== 'object' || value === null || Array.isArray(value)),
    (issue) =>
      issue.input === undefined ? 'a config value is required (null is allowed)' : 'objects are not config values',
  ),
  jsonValueSchema,
  v.transform((value) => value as ConfigValue),
);

/** Returns `value` when it is a config value (see {@link configValueSchema}). */
export function parseConfigValue(value: unknown, path: string): ConfigValue {
  return checkSchema(configValueSchema, value, path);
}
