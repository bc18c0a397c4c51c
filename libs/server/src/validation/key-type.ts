/** Key types: what an issued API key, or a trust's session, may do. */
import * as v from 'valibot';
import { KEY_TYPES, type TrustKeyType } from '../domain/model.js';
import { describeType, quote } from './json-type.js';
import { checkSchema } from './schema-check.js';

/** `secret` (reads secrets) or `public` (never does). */
export const keyTypeSchema = v.picklist(
  KEY_TYPES,
  (issue) =>
    `must be "secret" or "public", got ${typeof issue.input === 'string' ? quote(issue.input) : describeType(issue.input)}`,
);

/** Returns `value` when it is a key type (see {@link keyTypeSchema}). */
export function parseKeyType(value: unknown, path: string): TrustKeyType {
  return checkSchema(keyTypeSchema, value, path);
}
