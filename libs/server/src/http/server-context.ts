import type { AdminApi } from '../admin/admin-api.js';
import type { SealingControl } from '../sealing/sealing-control.js';
import type { ChangeLog } from '../domain/change-log.js';
import type { TimerClock } from '../domain/clock.js';
import type { FailedAttemptThrottle } from '../domain/failed-attempt-throttle.js';
import type { WriteRateLimiter } from '../domain/rate-limiter.js';
import type { SnapshotRenderer } from '../domain/snapshot-renderer.js';
import type { SessionTokens } from '../auth/session-tokens.js';
import type { Store } from '../domain/store.js';
import type { AwsTrustVerifier } from '../auth/aws-trust-verifier.js';
import type { JwtTrustVerifier } from '../auth/jwt-trust-verifier.js';
import type { OutboundPolicy } from '../outbound/outbound-policy.js';
import type { StreamHub } from '../domain/stream-hub.js';
import type { ProxyTrust } from '../ops/proxy-trust.js';
import type { Readiness } from '../observability/readiness.js';
import type { RequestScopes } from '../ops/request-scope.js';
import type { ServerMetrics } from '../ops/server-metrics.js';

/** What the request handlers share. */
export interface ServerContext {
  readonly store: Store;
  /** Changes on untrusted input: the admin routes and secret writes go through it. */
  readonly admin: AdminApi;
  /** Root- and data-key rotation. */
  readonly sealing: SealingControl;
  readonly renderer: SnapshotRenderer;
  readonly hub: StreamHub;
  /** Every answer waits for it, so nothing not yet durable leaves the server. */
  readonly changes: ChangeLog;
  /** The per-key secret-write rate limit: in memory, or shared by a fleet's replicas. */
  readonly limiter: WriteRateLimiter;
  readonly clock: TimerClock;
  readonly adminToken: string;
  /** Slows down wrong guesses of the admin token per client address; undefined when turned off. */
  readonly authThrottle: FailedAttemptThrottle | undefined;
  /** Issues and verifies workload-identity sessions. */
  readonly sessions: SessionTokens;
  /** Verifies Kubernetes, GCP and Azure platform JWTs. */
  /** Where the server may send its own requests (trusts' URLs). */
  readonly outbound: OutboundPolicy;
  readonly jwtVerifier: JwtTrustVerifier;
  /** Verifies AWS identities through STS. */
  readonly awsVerifier: AwsTrustVerifier;
  /** Which proxies may speak for a client: the host, address and scheme a request came with. */
  readonly proxy: ProxyTrust;
  readonly metrics: ServerMetrics;
  /** The checks of `/readyz`. */
  readonly readiness: Readiness;
  /** Each request's id and actor, through its async work. */
  readonly scopes: RequestScopes;
  /** The services' public host names (from `publicUrl`), where the admin API and console never answer. */
  readonly serviceHosts: RegExp | undefined;
}
