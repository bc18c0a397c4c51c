/**
 * Base of the errors `@vane/express` raises itself (the client's errors
 * extend `VaneError` from `@vane/client`).
 *
 * @packageDocumentation
 */

/** Every stable error code `@vane/express` adds to the client's codes. */
export type VaneExpressErrorCode = 'VANE_AB_CONTEXT_INVALID';

/**
 * Base class of the errors raised by `@vane/express` itself. Like the
 * client's `VaneError`, it carries a stable string `code` to match on.
 */
export abstract class VaneExpressError extends Error {
  /** Stable, machine-readable code of the condition. */
  abstract readonly code: VaneExpressErrorCode;
  /** The HTTP status {@link errorHandler} answers with by default. */
  abstract readonly status: number;

  protected constructor(message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }
}
