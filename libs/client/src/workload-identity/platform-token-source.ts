/**
 * The seam between a platform and the token exchange.
 *
 * @packageDocumentation
 */
import type { WorkloadIdentityProvider } from './workload-identity-options.js';

/** Where the platform identity of one provider comes from. */
export interface PlatformTokenSource {
  /** The provider named in the exchange request. */
  readonly provider: WorkloadIdentityProvider;
  /** Where the identity comes from, for logs and messages (a path or an endpoint, never a token). */
  readonly origin: string;
  /**
   * Obtains a fresh platform identity (PROTOCOL §8's `token`).
   *
   * @throws TokenExchangeFailedError | WorkloadIdentityNotConfiguredError - with a message naming the source, never the token.
   */
  token(): Promise<string>;
}
