import { VaneServerError, type VaneServerErrorOptions } from './vane-server-error.js';

/**
 * What a change names does not exist: a service, a key, a config, a flag, a
 * secret, a secret version or a trust. Over HTTP it is answered
 * `404 not_found`; match on {@link NotFoundError.code}. The message names
 * the thing, never a value.
 */
export class NotFoundError extends VaneServerError {
  /** Stable error code. */
  readonly code = 'VANE_LOCAL_NOT_FOUND' as const;

  /** @param message - names what is missing, e.g. `service "shop" has no flag "x"`. */
  constructor(message: string, options?: VaneServerErrorOptions) {
    super(message, options);
  }
}
