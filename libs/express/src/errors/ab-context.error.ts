/**
 * The A/B context of a request was refused.
 *
 * @packageDocumentation
 */
import { VaneExpressError } from './vane-express.error.js';

/**
 * The request carries no usable A/B context. Throw it from your own
 * middleware or handlers (e.g. a malformed session) to answer the request
 * with 400: `vane.errorHandler()` answers it with a fixed message, the
 * details stay in the logs. Thrown by the `abContext` option, or a context
 * the client refuses (an empty user id, an attribute that is not a
 * string), it does not reach the handler: the request's A/B flags fail
 * closed and one warning is logged, as in every adapter.
 */
export class AbContextError extends VaneExpressError {
  readonly code = 'VANE_AB_CONTEXT_INVALID' as const;
  readonly status = 400;

  /**
   * @param message - what was wrong (names the attribute and the type received, never a value).
   * @param options - `cause`: the client's `InvalidArgumentError`.
   */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
