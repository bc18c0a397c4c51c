import { VaneServerError, type VaneServerErrorOptions } from '../errors/vane-server-error.js';

/**
 * A sealed value or wrapped key does not open: it was changed, or moved to
 * another service, key or version than the one it was sealed for.
 */
export class SealedDataError extends VaneServerError {
  /** Stable error code. */
  readonly code = 'VANE_SEALED_DATA_INVALID' as const;

  /** @param message - names where the value is (service, key, version), never the value. */
  constructor(message: string, options?: VaneServerErrorOptions) {
    super(message, options);
  }
}
