import { VaneError } from '@vane/client';
import type { VaneErrorOptions } from '@vane/client/errors';

/** Every stable error code `@vane/nestjs` itself raises (the client's errors keep their own `VANE_*` codes). */
export type VaneNestErrorCode =
  | 'VANE_NEST_SECRET_UNAVAILABLE'
  | 'VANE_NEST_STARTUP_CHECK_FAILED'
  | 'VANE_NEST_OPTIONAL_PEER_MISSING'
  | 'VANE_NEST_CONFIG_SERVICE_MISSING';

/**
 * Base class of the errors `@vane/nestjs` raises outside of a request (the
 * request-time `SecretUnavailableException` is an `HttpException`). It is a
 * `VaneError` from `@vane/client`, like every Vane error. Match on `code`,
 * not on the class or the message.
 */
export abstract class VaneNestError extends VaneError<VaneNestErrorCode> {
  /** @param message - what happened and what to do. */
  protected constructor(message: string, options?: VaneErrorOptions) {
    super(message, options);
  }
}
