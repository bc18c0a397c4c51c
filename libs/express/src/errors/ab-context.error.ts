/**
 * The A/B context of a request was refused.
 *
 * @packageDocumentation
 */
import { VaneExpressError } from './vane-express.error.js';

/**
 * The user context that the `abContext` option produced for a request is
 * not valid (an empty user id, or an attribute that is not a string). The
 * client refused it before sending anything; the refusal is the `cause`.
 * {@link errorHandler} answers it with 400 and a fixed message: the
 * attribute's name stays in the logs, never in the response.
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
