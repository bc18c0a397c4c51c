import { VaneServerError, type VaneServerErrorOptions } from './vane-server-error.js';

/**
 * An outbound URL the server will not request: not `https:`, or a host that
 * is (or resolves to) a loopback, link-local, private or unique-local
 * address, and the operator's `--allow-outbound` list does not admit it.
 */
export class OutboundRefusedError extends VaneServerError {
  /** Stable error code. */
  readonly code = 'VANE_SERVER_OUTBOUND_REFUSED' as const;

  /** @param message - names the host (never a path or query, which may carry credentials) and why it is refused. */
  constructor(message: string, options?: VaneServerErrorOptions) {
    super(message, options);
  }
}
