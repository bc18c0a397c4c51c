/**
 * What a change names does not exist: a service, a key, a config, a flag, a
 * secret, a secret version or a trust. Answered as `404 not_found`; match on
 * {@link NotFoundError.code}. The message names the thing, never a value.
 */
export class NotFoundError extends Error {
  override readonly name = 'NotFoundError';
  /** Stable error code, the `error` member of a 404 answer. */
  readonly code = 'not_found';
}
