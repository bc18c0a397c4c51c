/**
 * Which failures of the initial sync may start the client from its
 * last-known-good backup: those that say nothing about the caller's rights.
 *
 * @packageDocumentation
 */
import {
  BillingOverdueError,
  NotAVaneServiceError,
  QuarantinedError,
  RateLimitedError,
  TokenExchangeFailedError,
  TransportError,
  UnexpectedResponseError,
} from '../errors.js';

/**
 * Why a client started from its backup: the service could not be reached
 * (`transport`), did not answer in time (`timeout`), failed (`server-error`,
 * a 5xx), turned the caller away for a while (`rate-limited`, `quarantined`),
 * or the tenant is billing-overdue (`billing-overdue`, where the specification
 * already serves the last snapshot).
 */
export type StaleStartReason =
  'transport' | 'timeout' | 'server-error' | 'rate-limited' | 'quarantined' | 'billing-overdue';

function fromStatus(status: number | undefined): StaleStartReason | undefined {
  if (status === undefined) return undefined;
  if (status === 429) return 'rate-limited';
  return status >= 500 && status <= 599 ? 'server-error' : undefined;
}

/**
 * Classifies a failure of the start. 401 (a revoked key must stop the app),
 * 404 (a wrong slug), a 4xx that is not 429, any answer but a 5xx or a 429 from
 * something that is not a Vane service (a wrong port), a malformed answer, a local
 * problem (file secrets, options, workload identity not configured) and
 * anything unknown give `undefined`: the start fails as without a backup.
 *
 * @returns the reason the backup may be used, or `undefined` when it may not.
 */
export function staleStartReason(error: unknown): StaleStartReason | undefined {
  if (error instanceof TransportError) return error.timedOut ? 'timeout' : 'transport';
  if (error instanceof QuarantinedError) return 'quarantined';
  if (error instanceof RateLimitedError) return 'rate-limited';
  if (error instanceof BillingOverdueError) return 'billing-overdue';
  if (error instanceof UnexpectedResponseError) {
    // A 5xx; not a 403 or a 400, and not a malformed answer (status 200), which a backup would only hide.
    return error.status !== undefined && error.status >= 500 && error.status <= 599 ? 'server-error' : undefined;
  }
  // A proxy's own 502/503 page while the service is down is the same outage; a foreign 404 or 200 is a wrong baseUrl.
  if (error instanceof NotAVaneServiceError) return fromStatus(error.status);
  if (error instanceof TokenExchangeFailedError) {
    // The exchange happens before the first sync: an unreachable or failing service there is
    // the same outage. A refusal (401, 403…) or a platform that gave no identity is not.
    if (error.status === undefined)
      return error.cause instanceof TransportError ? staleStartReason(error.cause) : undefined;
    return fromStatus(error.status);
  }
  return undefined;
}
