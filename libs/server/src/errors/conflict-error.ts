import { VaneServerError, type VaneServerErrorOptions } from './vane-server-error.js';

/**
 * A change would replace something that must be removed first: an admin
 * token name already taken. Over HTTP it is answered `409 conflict`.
 */
export class ConflictError extends VaneServerError {
  /** Stable error code. */
  readonly code = 'VANE_LOCAL_CONFLICT' as const;

  /** @param message - names what is in the way, never a value. */
  constructor(message: string, options?: VaneServerErrorOptions) {
    super(message, options);
  }
}
