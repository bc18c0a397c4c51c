import { LocalServerError, type LocalServerErrorOptions } from '../local-server-error.js';

/**
 * A change would replace something that must be removed first: an admin
 * token name already taken. Over HTTP it is answered `409 conflict`.
 */
export class ConflictError extends LocalServerError {
  /** Stable error code. */
  readonly code = 'VANE_LOCAL_CONFLICT' as const;

  /** @param message - names what is in the way, never a value. */
  constructor(message: string, options?: LocalServerErrorOptions) {
    super(message, options);
  }
}
