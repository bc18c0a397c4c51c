/** Secret types, values and write bodies (PROTOCOL §9). */
import * as v from 'valibot';
import type { SecretType } from '../domain/model.js';
import { describeType, quote } from './json-type.js';
import { membersSchema } from './primitives.js';
import { checkSchema } from './schema-check.js';

/** The secret types of PROTOCOL §9. */
export const SECRET_TYPES: ReadonlyArray<SecretType> = Object.freeze(['text', 'file']);

/** A secret type, `text` or `file`; absent means `text`. */
export const secretTypeSchema = v.optional(
  v.picklist(
    SECRET_TYPES as SecretType[],
    (issue) =>
      `must be one of ${SECRET_TYPES.join(', ')}; got ${typeof issue.input === 'string' ? quote(issue.input) : describeType(issue.input)}`,
  ),
  'text',
);

/** A secret value: a string, described by its type only when it is wrong, never echoed. */
export const secretValueSchema = v.string(
  (issue) => `a secret value must be a string, got ${describeType(issue.input)}`,
);

/** A secret write body (PROTOCOL §9): `value` string and `type` (default `text`). */
export const secretWriteSchema = membersSchema({ value: secretValueSchema, type: secretTypeSchema });

/** Parses a secret type (see {@link secretTypeSchema}). */
export function parseSecretType(value: unknown, path: string): SecretType {
  return checkSchema(secretTypeSchema, value, path);
}

/** Parses a secret value (see {@link secretValueSchema}). */
export function parseSecretValue(value: unknown, path: string): string {
  return checkSchema(secretValueSchema, value, path);
}

/** Parses a secret write body (see {@link secretWriteSchema}). */
export function parseSecretWrite(value: unknown, path: string): { value: string; type: SecretType } {
  return checkSchema(secretWriteSchema, value, path);
}
