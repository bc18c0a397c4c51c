/**
 * API keys: their type from the prefix, and the validation done before any request.
 *
 * @packageDocumentation
 */
import { InvalidArgumentError } from './errors.js';
import { redactKey } from '@vane/common';

/**
 * Type of the credential the client authenticates with: `sk` for a secret
 * key (`svs_…`), `pk` for a public key (`svp_…`), `''` when only a
 * workload-identity session is used.
 */
export type KeyType = 'sk' | 'pk' | '';

/**
 * The key type of an API key, from its prefix.
 *
 * @param key - an API key, or `undefined` when none is set.
 * @returns `sk`, `pk`, or `''` for no key or an unknown prefix.
 */
export function keyTypeOf(key: string | undefined): KeyType {
  // `svs_` → `sk`, `svp_` → `pk`: the prefix's letter and a `k`.
  const letter = key?.match(/^sv([sp])_/)?.[1];
  return letter ? `${letter as 's' | 'p'}k` : '';
}

/**
 * Checks that an API key is well formed before any request: a string that
 * starts with `svs_` or `svp_`, has something after the prefix, and holds
 * only characters an HTTP header accepts.
 *
 * @param key - the value given as `apiKey`.
 * @throws InvalidArgumentError - with the key redacted.
 */
export function assertValidApiKey(key: unknown): asserts key is string {
  if (typeof key !== 'string') throw new InvalidArgumentError(`apiKey must be a string (got ${typeof key})`);
  if (!/^sv[sp]_[\x21-\x7e]+$/.test(key))
    throw new InvalidArgumentError(
      `apiKey must start with svs_ or svp_ and be printable ASCII (got ${redactKey(key)})`,
    );
}
