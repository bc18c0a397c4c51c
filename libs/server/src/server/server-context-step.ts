/**
 * The third step of a start: what every request handler reaches (the
 * store behind the admin API and sealing, the signers of sessions and
 * console logins, the verifiers of workload identities, the throttles).
 *
 * @module
 */
import { StoreEndedSessions, StoreGuessLedger } from '../auth/store-access-ledgers.js';
import { AdminApi } from '../admin/admin-api.js';
import { ConsoleAssets } from '../console/console-assets.js';
import type { ConsoleRouteContext } from '../console/console-routes.js';
import { ConsoleSessions } from '../auth/console-sessions.js';
import { FailedAttemptThrottle } from '../domain/failed-attempt-throttle.js';
import { KeyRateLimiter } from '../domain/rate-limiter.js';
import { SessionTokens } from '../auth/session-tokens.js';
import type { ServerContext } from '../http/server-context.js';
import { serviceHostPattern } from '../ops/service-host-pattern.js';
import type { Keyring } from '../sealing/keyring.js';
import { resolveKeyring } from '../sealing/root-key-source.js';
import { SealingControl } from '../sealing/sealing-control.js';
import { SigningKeys } from '../auth/signing-keys.js';
import type { OpenedStore } from './open-store.js';
import { AwsTrustVerifier } from '../auth/aws-trust-verifier.js';
import { JwtTrustVerifier } from '../auth/jwt-trust-verifier.js';
import { PolicedOutboundFetch } from '../outbound/outbound-request.js';
import type { ServingParts } from './serving-parts.js';
import type { StartSettings } from './start-settings.js';
import type { VaneServerOptions } from './vane-server-options.js';

/** What every request is handled with: HTTP's {@link ServerContext} and the console's runtime. */
export type ServingContext = ServerContext & ConsoleRouteContext;

/** The context of every request the server will handle. */
export function serverContext(
  settings: StartSettings,
  options: VaneServerOptions,
  opened: OpenedStore,
  parts: ServingParts,
): ServingContext {
  const { store } = parts;
  const { changes, codec, keyFile, fleet: fleetLog } = opened;
  const { clock, adminToken, outbound } = settings;
  // Sessions and console logins are signed with keys derived from the root key: shared by a fleet, stored nowhere.
  const keyring = (): Keyring | undefined => codec?.keyring;
  return {
    store,
    admin: new AdminApi(store),
    sealing: new SealingControl(
      store,
      changes,
      codec,
      () => (keyFile === undefined ? undefined : resolveKeyring({ rootKeyFile: keyFile }).keyring),
      settings.logger,
    ),
    renderer: parts.renderer,
    hub: parts.hub,
    limiter: fleetLog ? fleetLog.rateLimiter() : new KeyRateLimiter(),
    changes,
    clock,
    adminToken,
    sessions: new SessionTokens(clock, settings.sessionTtlMs, new SigningKeys('session', keyring, () => clock.now())),
    outbound,
    jwtVerifier: new JwtTrustVerifier(clock, new PolicedOutboundFetch(outbound)),
    awsVerifier: new AwsTrustVerifier(new PolicedOutboundFetch(outbound)),
    // Wrong guesses and logouts are kept in the store: one count and one logout for the fleet, across restarts.
    authThrottle:
      options.authThrottle === false
        ? undefined
        : new FailedAttemptThrottle(options.authThrottle, new StoreGuessLedger(store, changes)),
    console: {
      sessions: new ConsoleSessions(
        Date.now,
        new SigningKeys('console', keyring),
        adminToken,
        new StoreEndedSessions(store, changes),
      ),
      feed: parts.consoleFeed,
      assets: new ConsoleAssets(),
    },
    proxy: settings.proxy,
    metrics: parts.metrics,
    readiness: parts.readiness,
    scopes: settings.scopes,
    serviceHosts: options.publicUrl === undefined ? undefined : serviceHostPattern(options.publicUrl),
  };
}
