import { VaneServerError, type VaneServerErrorOptions } from '../errors/vane-server-error.js';

/**
 * The data is sealed by a root key the server was not given (or is not
 * sealed yet and no key was given to seal it). Nothing was read past the
 * check, and nothing was written.
 */
export class RootKeyMissingError extends VaneServerError {
  /** Stable error code. */
  readonly code = 'VANE_ROOT_KEY_MISSING' as const;

  /**
   * @param message - one line naming the key id the data needs, and where keys come from.
   * @param keyIds - the ids of the root keys the data needs (empty when the data is not sealed yet).
   */
  constructor(
    message: string,
    readonly keyIds: readonly string[],
    options?: VaneServerErrorOptions,
  ) {
    super(message, options);
  }
}
