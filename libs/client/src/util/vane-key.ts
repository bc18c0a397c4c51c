/**
 * The key rule of PROTOCOL §4, on the client side.
 *
 * @packageDocumentation
 */

/** Flag and secret keys: 1 to 256 characters of `[A-Za-z0-9._-]` (PROTOCOL §4). */
export const VANE_KEY_PATTERN = /^[A-Za-z0-9._-]{1,256}$/;

/** Whether `key` is a valid flag or secret key. The one check of the client and every adapter. */
export function isVaneKey(key: unknown): key is string {
  return typeof key === 'string' && VANE_KEY_PATTERN.test(key);
}
