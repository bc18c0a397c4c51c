import { LocalServerError, type LocalServerErrorOptions } from '../local-server-error.js';

/**
 * A `store` this build cannot open (a `postgres://` URL where the
 * PostgreSQL store is not built in). The message never holds the URL's
 * password. Match on {@link StoreUnavailableError.code}.
 */
export class StoreUnavailableError extends LocalServerError {
  /** Stable error code. */
  readonly code = 'VANE_STORE_UNAVAILABLE' as const;

  constructor(message: string, options?: LocalServerErrorOptions) {
    super(message, options);
  }
}
