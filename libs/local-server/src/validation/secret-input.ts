/** Secret types and secret write bodies (PROTOCOL §9). */
import { appendJsonPath } from '../json-path.js';
import type { SecretType } from '../model.js';
import { describeType, quote } from './json-type.js';
import { parseObject } from './primitives.js';
import { fail } from './validation-error.js';

/** The secret types of PROTOCOL §9. */
export const SECRET_TYPES: ReadonlyArray<SecretType> = Object.freeze(['text', 'file']);

/** Parses a secret type, `text` or `file`; absent means `text`. */
export function parseSecretType(value: unknown, path: string): SecretType {
  if (value === undefined) return 'text';
  if (typeof value !== 'string' || !(SECRET_TYPES as ReadonlyArray<string>).includes(value)) {
    const got = typeof value === 'string' ? quote(value) : describeType(value);
    fail(path, `must be one of ${SECRET_TYPES.join(', ')}; got ${got}`);
  }
  return value as SecretType;
}

/**
 * Parses a secret write body (PROTOCOL §9): `value` string (never echoed)
 * and `type` (default `text`).
 */
export function parseSecretWrite(value: unknown, path: string): { value: string; type: SecretType } {
  const object = parseObject(value, path);
  const secret = object['value'];
  if (typeof secret !== 'string') {
    fail(appendJsonPath(path, 'value'), `a secret value must be a string, got ${describeType(secret)}`);
  }
  return { value: secret, type: parseSecretType(object['type'], appendJsonPath(path, 'type')) };
}
