/**
 * Base of the errors `@vane/express` raises itself (a `VaneError`, like the client's).
 *
 * @packageDocumentation
 */
import { VaneError } from '@vane/client';
import type { VaneErrorOptions } from '@vane/client/errors';

/** Every stable error code `@vane/express` adds to the client's codes. */
export type VaneExpressErrorCode = 'VANE_AB_CONTEXT_INVALID';

/**
 * Base class of the errors raised by `@vane/express` itself: a `VaneError`
 * from `@vane/client`, like every Vane error, with a stable string `code`
 * to match on.
 */
export abstract class VaneExpressError extends VaneError<VaneExpressErrorCode> {
  /** The HTTP status `vane.errorHandler()` answers with by default. */
  abstract readonly status: number;

  protected constructor(message: string, options?: VaneErrorOptions) {
    super(message, options);
  }
}
