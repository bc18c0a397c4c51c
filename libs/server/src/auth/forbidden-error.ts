import { VaneServerError, type VaneServerErrorOptions } from '../errors/vane-server-error.js';
import type { AdminRight } from '../domain/model.js';

/**
 * The admin token lacks the right a change or read needs. Over HTTP it is
 * answered `403 forbidden` (PROTOCOL §10).
 */
export class ForbiddenError extends VaneServerError {
  /** Stable error code. */
  readonly code = 'VANE_LOCAL_FORBIDDEN' as const;

  /**
   * @param message - names the token and what it tried.
   * @param right - the right it lacks.
   */
  constructor(
    message: string,
    readonly right: AdminRight,
    options?: VaneServerErrorOptions,
  ) {
    super(message, options);
  }
}
