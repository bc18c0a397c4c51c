/**
 * The error `@vane/browser` raises for an answer of the service or a network
 * failure. Its `code` is the one `@vane/client` raises for the same
 * condition (decided by `@vane/client-core`); match on `code`.
 *
 * @packageDocumentation
 */
import { VaneError, type VaneErrorCode } from '@vane/client-core';

/** Options of a {@link VaneServiceError}. */
export interface VaneServiceErrorOptions {
  /** The HTTP status, when there was an answer. */
  readonly status?: number;
  /** The `error` member of the answer's body, if any. */
  readonly serverCode?: string;
  /** The delay the service asked for (`Retry-After`, a quarantine's `until`), in milliseconds. */
  readonly retryAfterMs?: number;
  /** The underlying error (a network failure, with no key in it). */
  readonly cause?: unknown;
}

/**
 * An answer of the service the client cannot use, or no answer at all:
 * `VANE_UNAUTHORIZED`, `VANE_BILLING_OVERDUE`, `VANE_NOT_FOUND`,
 * `VANE_RATE_LIMITED`, `VANE_QUARANTINED`, `VANE_ADDON_NOT_AVAILABLE`,
 * `VANE_UNEXPECTED_RESPONSE`, `VANE_NOT_A_VANE_SERVICE` or `VANE_TRANSPORT`.
 */
export class VaneServiceError extends VaneError<VaneErrorCode> {
  override readonly name = 'VaneServiceError';
  /** The stable code of the condition. */
  declare readonly code: VaneErrorCode;
  /** The HTTP status, when there was an answer. */
  declare readonly status: number | undefined;
  /** The `error` member of the answer's body, if any. */
  declare readonly serverCode: string | undefined;
  /** The delay the service asked for, in milliseconds, if any. */
  declare readonly retryAfterMs: number | undefined;

  /**
   * @param code - the condition.
   * @param message - what happened; never a key or a value.
   */
  constructor(code: VaneErrorCode, message: string, options: VaneServiceErrorOptions = {}) {
    super(message, options);
    // Written in one go: every field is there, `undefined` when not known.
    Object.assign(this, {
      code,
      status: options.status,
      serverCode: options.serverCode,
      retryAfterMs: options.retryAfterMs,
    });
  }
}
