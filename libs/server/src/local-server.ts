import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { systemClock, type TimerClock } from './domain/clock.js';
import { ConsoleAssets } from './console/console-assets.js';
import { ConsoleFeed } from './console/console-feed.js';
import { ConsoleSessions } from './console/console-sessions.js';
import { createRequestHandler } from './http/request-handler.js';
import { OpenApiRoute } from './http/openapi-route.js';
import { vaneOpenApiDocument } from './openapi/index.js';
import { SESSION_IDENTITY_PREFIX } from './http/service-routes.js';
import type { ServerContext } from './http/server-context.js';
import { silentLogger, type VaneServerLogger } from './logger.js';
import type { AbRule, AuditEntry, ConfigValue, TenantState } from './domain/model.js';
import { KeyRateLimiter } from './domain/rate-limiter.js';
import {
  checkFailedAttemptThrottleOptions,
  FailedAttemptThrottle,
  type FailedAttemptThrottleOptions,
} from './domain/failed-attempt-throttle.js';
import { StoreEndedSessions, StoreGuessLedger } from './access/store-access-ledgers.js';
import { SnapshotRenderer, type Audience } from './domain/snapshot-renderer.js';
import { SessionTokens } from './domain/session-tokens.js';
import { AdminApi } from './admin-api.js';
import { OWNER_ACTOR } from './domain/actors.js';
import { NotFoundError } from './domain/not-found-error.js';
import { openStore } from './store/open-store.js';
import { parseStoreLocation } from './store/store-location.js';
import { SealingControl } from './sealing/sealing-control.js';
import { resolveKeyring } from './sealing/root-key-source.js';
import { SigningKeys, SIGNING_KEY_PERIOD_MS } from './sealing/signing-keys.js';
import type { Keyring } from './sealing/keyring.js';
import { Store, type SecretWriteOutcome } from './domain/store.js';
import { auditChainKey, type AuditChainKey } from './audit/audit-chain.js';
import { sseFrame, StreamHub, type StreamStats } from './domain/stream-hub.js';
import { parseListenAddress, type ListenAddress } from './config/listen-address.js';
import { SingleProcessFleetView, type FleetView, type LocalReplica } from './fleet/fleet-view.js';
import { Rebalancer, type RebalanceOptions } from './fleet/rebalancer.js';
import { FleetViewStreamCounts } from './fleet/stream-counts.js';
import { ServiceDrift } from './fleet/service-drift.js';
import { ProxyTrust } from './ops/proxy-trust.js';
import { OutboundPolicy } from './outbound/outbound-policy.js';
import { Readiness, type ReadinessCheck } from './ops/readiness.js';
import { RequestScopes } from './ops/request-scope.js';
import { ServerMetrics } from './ops/server-metrics.js';
import { openListeners, type ListenerPlan, type OpenListeners } from './ops/server-listeners.js';
import { drainStreams } from './ops/stream-drain.js';
import { TlsFiles } from './ops/tls-files.js';
import { describeWrite } from './ops/write-log.js';
import { serviceHostPattern } from './ops/service-host-pattern.js';
import { AwsTrustVerifier } from './trust-verifiers/aws-trust-verifier.js';
import { JwtTrustVerifier } from './trust-verifiers/jwt-trust-verifier.js';

/** How long a workload-identity session lives unless `sessionTtlMs` says otherwise, in milliseconds. */
export const DEFAULT_SESSION_TTL_MS = 3_600_000;

/** Default of `headersTimeoutMs`, in milliseconds. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;

/** Default of `requestTimeoutMs`, in milliseconds. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** A seed document (PROTOCOL §11), for seeds written in code. */
export interface VaneServerSeed {
  /** The JSON Schema of seed files, for editors (`./vane-seed.schema.json` beside the demo seed); ignored. */
  $schema?: string;
  tenant?: Partial<TenantState>;
  services?: Record<
    string,
    {
      kind?: string;
      keys?: string[];
      revoked_keys?: string[];
      configs?: Record<string, ConfigValue>;
      flags?: Record<string, VaneServerFlagInput>;
      secrets?: Record<
        string,
        { type?: 'text' | 'file'; value: string } | { type?: 'text' | 'file'; versions: string[] }
      >;
      /** Workload-identity trusts by name (PROTOCOL §8). */
      trusts?: Record<string, VaneServerTrustInput>;
    }
  >;
}

/**
 * A workload-identity trust as the seed and the admin API take it. Each
 * maps a platform identity to its service and one key type.
 */
export type VaneServerTrustInput =
  | {
      provider: 'kubernetes' | 'gcp' | 'azure';
      /** The `iss` the platform JWT must carry. */
      issuer: string;
      /** The `aud` the platform JWT must carry. */
      audience: string;
      /** Allowed `sub` claims (e.g. `system:serviceaccount:shop:api`). */
      subjects: string[];
      /** Inline JSON Web Key Set; give this or `jwks_url`. */
      jwks?: { keys: Array<Record<string, unknown>> };
      /** URL of the JSON Web Key Set; give this or `jwks`. */
      jwks_url?: string;
      /** Whether a session acts as a secret or a public key. */
      key_type: 'secret' | 'public';
    }
  | {
      provider: 'aws';
      /** Where the signed GetCallerIdentity is forwarded. @default 'https://sts.amazonaws.com' */
      sts_endpoint?: string;
      /** Allowed IAM role (or user) ARNs; an assumed-role session counts as its role. */
      role_arns: string[];
      /** When set, the signed request must carry a signed `x-vane-audience` header of this value. */
      audience?: string;
      /** Whether a session acts as a secret or a public key. */
      key_type: 'secret' | 'public';
    };

/** A flag as the admin API takes it. */
export interface VaneServerFlagInput {
  is_enabled: boolean;
  /** RFC 3339; null or absent for unbounded. */
  starts_at?: string | null;
  /** RFC 3339; null or absent for unbounded. */
  ends_at?: string | null;
  ab?: AbRule | null;
}

/** A partial update of a flag: the members given change, the others stay. */
export interface VaneServerFlagPatch {
  is_enabled?: boolean;
  /** RFC 3339, or null to remove the start of the schedule. */
  starts_at?: string | null;
  /** RFC 3339, or null to remove the end of the schedule. */
  ends_at?: string | null;
  /** A new A/B rule, or null to remove it. */
  ab?: AbRule | null;
}

/** Options of {@link startVaneServer}. */
export interface VaneServerOptions {
  /** The seed: a document, or the path of a JSON seed file. Default: no services. */
  seed?: VaneServerSeed | string;
  /** TCP port; 0 picks a free one. @default 0 */
  port?: number;
  /** Interface to listen on. @default '127.0.0.1' */
  host?: string;
  /** Token of the admin API. @default a random token, readable as `adminToken` */
  adminToken?: string;
  /**
   * Persist every change to this JSON file and load it on start. When the
   * file exists it wins over `seed`. Every change is first appended to
   * `<statePath>.journal` and fsynced, and nothing it changed is visible (no
   * answer, patch or snapshot) before that: a crash loses no acknowledged
   * write. The journal is folded into the file in the background.
   * @default no persistence
   */
  statePath?: string;
  /**
   * Where the data lives: `memory`, `file:PATH` (as `statePath`), or a
   * `postgres://` URL for a fleet of replicas that share one database (the
   * `postgres` package must be installed). Wins over `statePath`.
   * @default `file:<statePath>` when `statePath` is given, else `memory`
   */
  store?: string;
  /**
   * How often a replica of a PostgreSQL store checks for commits it was not
   * notified of (and sends its heartbeat), in milliseconds.
   * @default 5000
   */
  storeCheckIntervalMs?: number;
  /**
   * On a `postgres://` store: the clock of its write deadlines, statement
   * bounds and checks, for tests that count them (a `ManualClock`) rather
   * than wait for them. Apart from `clock`, whose timers the tests of flag
   * schedules count.
   * @default the system clock
   */
  storeClock?: TimerClock;
  /**
   * The root keys that seal the state at rest (every secret value, under a
   * data key per service that the root key wraps): base64 keys of 32 bytes,
   * one a line or comma-separated; the first seals, the others still open
   * what they sealed (a rotation's old key). Keys never go on a command line:
   * the CLI reads `VANE_ROOT_KEY` or `--root-key-file`.
   * @default `rootKeyFile`; else, with `statePath`, the key file beside it
   *   (`<statePath>.root-key`), made (mode 0600) on the state's first start;
   *   an existing state without a key refuses to start. Without `statePath`
   *   a random key: nothing is stored to seal.
   */
  rootKey?: string;
  /** A file holding the root keys, as `rootKey` takes them. */
  rootKeyFile?: string;
  /**
   * Time a client has to send a request's headers, from the moment it
   * connects, in milliseconds; then 408 and the connection closes. Open
   * streams are not affected: the limit ends with the request.
   * @default 10000
   */
  headersTimeoutMs?: number;
  /**
   * Time a client has to send a whole request (headers and body), in
   * milliseconds; at least `headersTimeoutMs`. Open streams are not affected.
   * @default 30000
   */
  requestTimeoutMs?: number;
  /** Interval of the stream's `: ping` keep-alive, in ms. @default 15000 */
  pingIntervalMs?: number;
  /** Patches kept per service for `Last-Event-ID` replay. @default 1000 */
  historySize?: number;
  /**
   * Bytes of patches kept per service for `Last-Event-ID` replay (the
   * encoded events for secret and public keys together); beyond it the
   * oldest are dropped, as beyond `historySize`, and a client whose
   * `Last-Event-ID` went with them is sent `resync`. A replay larger than
   * `streamBufferBytes` is never sent anyway, so the default keeps all that
   * can be replayed. `Infinity` leaves only `historySize`.
   * @default twice `streamBufferBytes` (2097152)
   */
  historyBytes?: number;
  /** Bytes a stream may have queued before the server drops it as a slow consumer. @default 1048576 */
  streamBufferBytes?: number;
  /**
   * Lifetime of the workload-identity sessions the token exchange issues, in
   * milliseconds (whole seconds are used, at least 1 s, at most a day).
   * Sessions are signed with keys derived from the root key, so every
   * replica accepts them and they outlive a restart (a memory store's random
   * key aside).
   * @default 3600000 (one hour)
   */
  sessionTtlMs?: number;
  /**
   * The throttle of wrong admin tokens, per client address, shared by the
   * admin API's bearer token and the console's login form: after
   * `freeFailures` wrong tokens, each further one makes the address wait
   * (`429 rate_limited` with `Retry-After`) before its next token is even
   * checked, `baseDelayMs` doubling up to `maxDelayMs`; an address with no
   * wrong token for `forgetAfterMs` starts afresh. The right token always
   * gets in once the wait is over. Give any of the members to change them,
   * or `false` to turn the throttle off.
   * @default { freeFailures: 5, baseDelayMs: 1000, maxDelayMs: 60000, forgetAfterMs: 600000 }
   */
  authThrottle?: Partial<FailedAttemptThrottleOptions> | false;
  /** Time source for flag schedules, quarantine, rate limits (the admin-token throttle too) and session expiry. @default the system clock */
  clock?: TimerClock;
  /** Where to log. @default silent */
  logger?: VaneServerLogger;
  /**
   * Proxies whose `X-Forwarded-For`, `-Host` and `-Proto` are believed
   * (addresses, CIDRs, or `loopback`, `linklocal`, `uniquelocal`, as
   * Express's `trust proxy`): for the service's slug, the throttle's client
   * address, the console cookie's `Secure`. @default none
   */
  trustProxy?: readonly string[];
  /**
   * What the server may request besides public `https:` hosts, for a
   * trust's `jwks_url` and `sts_endpoint` (URLs an admin token can set):
   * origins (`'http://127.0.0.1:8080'`: any scheme, any address) and networks
   * (`'10.20.0.0/16'`: `https:` to addresses in it). Without an entry, a URL
   * that is not `https:`, or whose host is or resolves to a loopback,
   * link-local, private or unique-local address, is refused, checked on the
   * address connected to. @default none
   */
  allowOutbound?: readonly string[];
  /**
   * The services' public base URL, `{slug}` standing for the slug
   * (`'https://{slug}.vane.acme.internal'`), for `baseUrl()` and what the
   * command line prints. @default `http://{slug}.localhost:<port>`
   */
  publicUrl?: string;
  /** Serve the admin API and console on their own `HOST:PORT` instead of the main port. @default on the main port */
  adminListen?: string;
  /**
   * Serve `/healthz`, `/readyz` and `/metrics` on their own `HOST:PORT`
   * (plain HTTP). @default on the admin listener if any, else the main port
   */
  opsListen?: string;
  /** Native TLS on the main and admin listeners, from PEM files reloaded when they change. @default plain HTTP */
  tls?: {
    certPath: string;
    keyPath: string;
    /** How often the files are checked, in ms. @default 1000 */ watchIntervalMs?: number;
  };
  /** Over how long `drain()` spreads its streams' reconnections, in ms. @default 10000 */
  drainWindowMs?: number;
  /** How long `drain()` then waits for in-flight requests before cutting them, in ms. @default 10000 */
  drainTimeoutMs?: number;
  /** Conditions of `/readyz` besides "not draining"; more can be added with `readiness.add()`. */
  readinessChecks?: readonly ReadinessCheck[];
  /** How long a service may differ from the store before `/readyz` turns false, in ms. @default 30000 */
  driftBoundMs?: number;
  /** This replica's id in the fleet. @default host name, pid and a random suffix */
  replicaId?: string;
  /** What this replica knows of its fleet. @default itself alone (a single-process view) */
  fleetView?: (self: LocalReplica) => FleetView;
  /** Stream rebalancing across the fleet; `false` turns it off. @default every 2.5 s, 5 % tolerance, 1000 at a time, spread over 2 s */
  rebalance?: RebalanceOptions | false;
}

/** Changes the local server's data in process, as the admin API would; each returns at once. */
export interface VaneServerAdmin {
  /** Creates a service (kind `backend`, project `default` unless given) or changes its kind or project; returns its revision. */
  putService(slug: string, service?: { kind?: string; project?: string }): number;
  /** Creates a project (services live in one; `default` always exists); returns whether it is new. */
  putProject(name: string): boolean;
  /** Issues a new key and returns it. */
  createKey(slug: string, type: 'secret' | 'public'): string;
  /** Revokes a key; its open streams end. */
  revokeKey(slug: string, key: string): number;
  /** Sets a config value; returns the new revision. */
  setConfig(slug: string, key: string, value: ConfigValue): number;
  /** Deletes a config value; returns the new revision. */
  deleteConfig(slug: string, key: string): number;
  /**
   * Creates or replaces a flag: members left out take their defaults (no
   * schedule, no A/B rule). Returns the new revision.
   */
  setFlag(slug: string, key: string, flag: VaneServerFlagInput): number;
  /**
   * Changes only the members of an existing flag that `patch` names
   * (`ab: null` removes the rule, a `null` schedule end removes that end);
   * returns the new revision. Throws a `NotFoundError` for an unknown flag.
   */
  patchFlag(slug: string, key: string, patch: VaneServerFlagPatch): number;
  /** Deletes a flag; returns the new revision. */
  deleteFlag(slug: string, key: string): number;
  /** Adds a secret version. */
  setSecret(slug: string, key: string, value: string, type?: 'text' | 'file'): SecretWriteOutcome;
  /** Deletes every version of a secret; returns the new revision. */
  deleteSecret(slug: string, key: string): number;
  /** Deletes one version of a secret; returns the new revision. */
  deleteSecretVersion(slug: string, key: string, version: number): number;
  /** Changes the tenant's billing, add-on, quarantine or rate-limit settings. */
  setTenant(tenant: Partial<TenantState>): Readonly<TenantState>;
  /** The secret audit trail of a service (never values). */
  audit(slug: string): readonly AuditEntry[];
  /** Creates or replaces a workload-identity trust; replacing one ends the sessions it issued. */
  putTrust(slug: string, name: string, trust: VaneServerTrustInput): void;
  /** Deletes a trust; the sessions it issued answer 401 from now on. */
  deleteTrust(slug: string, name: string): void;
}

/** One service as {@link VaneServer.services} lists it. */
export interface VaneServiceSummary {
  slug: string;
  kind: string;
  revision: number;
  /** Active keys, secret and public, that this process knows in full (from the seed, or created since it started). */
  keys: string[];
  /** Every active key redacted (`svs_…abcd`), known in full here or not: what the start lines print. */
  keyHints: string[];
}

/** A running local server. */
export interface VaneServer {
  /** `http://<host>:<port>`: the admin API's address. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** The admin API's bearer token. */
  readonly adminToken: string;
  /** In-process admin operations. */
  readonly admin: VaneServerAdmin;
  /** The service's `{base_url}`: `http://<slug>.localhost:<port>`. */
  baseUrl(slug: string): string;
  /** The service's first active secret key. */
  secretKey(slug: string): string;
  /** The service's first active public key. */
  publicKey(slug: string): string;
  /** The service's current revision. */
  revision(slug: string): number;
  /** Every service with its kind, revision and active keys. */
  services(): VaneServiceSummary[];
  /** Open streams, dropped slow consumers and the bytes kept for replay. */
  stats(): StreamStats;
  /**
   * Resolves once every change made so far is durable and its patches sent:
   * `admin` calls return first, and a file or PostgreSQL store commits them
   * in the background.
   */
  settled(): Promise<void>;
  /** Ends open streams, stops timers, writes pending state and stops listening. Idempotent. */
  close(): Promise<void>;
  /**
   * A graceful stop (PROTOCOL §6): `/readyz` turns false, every stream is
   * sent `goaway` with delays spread over `drainWindowMs`, new streams are
   * sent `goaway` at once (come back after this server's exit bound,
   * `drainWindowMs + drainTimeoutMs`); after the window it stops listening, waits up to
   * `drainTimeoutMs` for in-flight requests, then closes. Resolves within
   * `drainWindowMs + drainTimeoutMs` and a little more. Idempotent.
   */
  drain(): Promise<void>;
  /**
   * Compares this replica's streams with its fleet's now (as the periodic
   * check does) and sends `goaway` to its excess; resolves with how many.
   */
  rebalance(): Promise<number>;
  /** The admin API's and console's listener (`url` unless `adminListen`). */
  readonly adminUrl: string;
  /** Where `/healthz`, `/readyz` and `/metrics` answer. */
  readonly opsUrl: string;
  /** The Prometheus metrics; a store sets the revision lag and drift on it. */
  readonly metrics: ServerMetrics;
  /** The checks of `/readyz`; a store adds its own. */
  readonly readiness: Readiness;
  /** Where a store's drift check reports each service as differing or in step (a `/readyz` check, a metric, a log line). */
  readonly drift: ServiceDrift;
  /** This replica, as the fleet sees it. */
  readonly replica: LocalReplica;
}

/**
 * Starts a complete Vane service on loopback.
 *
 * @example
 * const server = await startVaneServer({ seed: 'vane.seed.json' });
 * const client = await VaneClient.create({ baseUrl: server.baseUrl('shop'), apiKey: server.secretKey('shop') });
 * server.admin.setFlag('shop', 'new-checkout', { is_enabled: false });
 * await server.close();
 */
export async function startVaneServer(options: VaneServerOptions = {}): Promise<VaneServer> {
  const clock = options.clock ?? systemClock;
  const scopes = new RequestScopes();
  // Every line written inside a request carries its id.
  const logger = scopes.wrap(options.logger ?? silentLogger);
  const proxy = new ProxyTrust(options.trustProxy);
  const outbound = new OutboundPolicy(options.allowOutbound);
  const listen = listenPlan(options);
  // Options are checked before anything is opened, so a bad one leaves nothing to clean up.
  if (options.authThrottle !== false) checkFailedAttemptThrottleOptions(options.authThrottle);
  const bufferBytes = options.streamBufferBytes ?? 1024 * 1024;
  const historyBytes = options.historyBytes ?? 2 * bufferBytes;
  if (!(historyBytes >= 0)) throw new RangeError('historyBytes must be a number of bytes of at least 0');
  const location = parseStoreLocation(
    options.store ?? (options.statePath === undefined ? 'memory' : `file:${options.statePath}`),
  );
  const replicaId = options.replicaId ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const opened = await openStore({
    location,
    seed: options.seed,
    clock,
    logger,
    replicaId,
    checkIntervalMs: options.storeCheckIntervalMs,
    storeClock: options.storeClock,
    rootKey: options.rootKey,
    rootKeyFile: options.rootKeyFile,
  });
  const { data, changes, fleet: fleetLog, codec, keyFile } = opened;
  const pingIntervalMs = options.pingIntervalMs ?? 15_000;
  // The web console follows every change and every stream opening or closing.
  const consoleFeed = new ConsoleFeed(pingIntervalMs);
  // Made once the listeners are open; a stream cannot open before.
  let rebalancer: Rebalancer | undefined;
  const hub = new StreamHub({
    pingIntervalMs,
    historySize: options.historySize ?? 1000,
    historyBytes,
    bufferBytes,
    onStreamsChanged: () => {
      consoleFeed.notify();
      rebalancer?.streamsChanged();
    },
  });
  // Assigned once below: the store's change callback needs the renderer, and the renderer needs the store.
  // eslint-disable-next-line prefer-const
  let renderer: SnapshotRenderer | undefined;
  const readiness = new Readiness();
  for (const check of options.readinessChecks ?? []) readiness.add(check);
  const replica: LocalReplica = {
    id: replicaId,
    streams: () => hub.stats().streams,
    revisions: () => Object.fromEntries(store.slugs().map((slug) => [slug, hub.revision(slug) ?? 0])),
  };
  const fleet = options.fleetView?.(replica) ?? fleetLog?.fleetView(replica) ?? new SingleProcessFleetView(replica);
  const metrics = new ServerMetrics({
    streamsByService: () => hub.streamsByService(),
    fleet,
    draining: () => readiness.draining,
  });
  const drift = new ServiceDrift(metrics, logger, options.driftBoundMs);
  readiness.add(drift);
  let auditKeyCache: (AuditChainKey & { readonly rootKeyId: string }) | undefined;
  const store = new Store(
    data,
    clock,
    {
      change(change) {
        changes.revised(change);
        const frame = (audience: Audience): Buffer =>
          Buffer.from(sseFrame('patch', change.revision, JSON.stringify(renderer!.patch(change, audience))));
        // Rendered now, from the data as this revision left it; sent once the revision is durable.
        const patch = {
          base: change.base,
          revision: change.revision,
          frames: { secret: frame('secret'), public: frame('public') },
        };
        changes.afterDurable(() =>
          metrics.patchSent(change.slug, hub.publish(change.slug, patch), Date.now() - change.committedAtMs),
        );
      },
      mutation: (change) => {
        const madeAt = performance.now();
        // Read now: the request's scope (its id and actor) is not the durable callback's.
        const write = describeWrite(change, scopes.current());
        changes.record(change);
        changes.afterDurable(() => {
          metrics.storeWrite(performance.now() - madeAt);
          logger.info(write.message, write.fields);
        });
        // The console shows what clients can get: durable changes.
        changes.afterDurable(() => consoleFeed.notify());
      },
      keyRevoked: (identity) => hub.endWhere((c) => c.key === identity.key),
      trustChanged: (slug, name) =>
        hub.endWhere((c) => c.slug === slug && c.key.startsWith(`${SESSION_IDENTITY_PREFIX}${name}:`)),
      // Streams must not outlive the right to them: the reconnect meets the 402 or 429.
      tenantChanged: () => {
        if (store.billingOverdue() || store.quarantinedUntil()) hub.endWhere(() => true);
      },
      // A reload from the store replaced these services without patches: their streams sync.
      reloaded: (slugs) => {
        for (const slug of slugs) {
          renderer!.forget(slug);
          hub.resync(slug, store.service(slug)?.revision ?? 0);
        }
        consoleFeed.notify();
      },
      // On a fleet every replica turns a boundary at once and commits it: the first commit wins; the others find it
      // when they commit, undo theirs and apply it. One revision per boundary.
      ...(fleetLog && {
        boundaryDue: (slug: string, turn: () => void) => {
          try {
            fleetLog.commitLater({ slugs: [slug], run: turn });
          } catch (error) {
            logger.error(`a flag schedule of "${slug}" could not be turned: ${(error as Error).message}`);
          }
        },
      }),
    },
    {
      committedAtMs: (slug) => opened.committedAtMs?.get(slug),
      // A sealed store keys its audit chain with the primary root key's audit key (one derivation per root key).
      auditKey: () => {
        const primary = codec?.keyring.primary;
        if (primary === undefined) return undefined;
        if (auditKeyCache?.rootKeyId !== primary.id)
          auditKeyCache = { rootKeyId: primary.id, ...auditChainKey(primary) };
        return auditKeyCache;
      },
    },
  );
  renderer = new SnapshotRenderer(store, (slug) => changes.committedService?.(slug));
  for (const slug of store.slugs()) hub.setRevision(slug, store.service(slug)!.revision);
  const release = async (): Promise<void> => {
    store.close();
    await changes.close();
    await opened.release();
  };
  if (fleetLog) {
    fleetLog.streamCount = () => rebalancer?.reported().streams ?? hub.stats().streams;
    fleetLog.drift = drift;
    try {
      await fleetLog.attach(store);
    } catch (error) {
      await release();
      throw error;
    }
  }
  const adminToken = options.adminToken ?? randomBytes(24).toString('base64url');
  const sessionTtlMs = options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS;
  if (!Number.isFinite(sessionTtlMs) || sessionTtlMs < 1000 || sessionTtlMs > SIGNING_KEY_PERIOD_MS) {
    await release();
    throw new RangeError(
      `sessionTtlMs must be a number of milliseconds from 1000 to ${SIGNING_KEY_PERIOD_MS} (its signing key's period)`,
    );
  }
  // Sessions and console logins are signed with keys derived from the root key: shared by a fleet, stored nowhere.
  const keyring = (): Keyring | undefined => codec?.keyring;
  const admin = new AdminApi(store);
  const sealing = new SealingControl(store, changes, codec, () =>
    keyFile === undefined ? undefined : resolveKeyring({ rootKeyFile: keyFile }).keyring,
  );
  const ctx: ServerContext = {
    store,
    admin,
    sealing,
    renderer,
    hub,
    limiter: fleetLog ? fleetLog.rateLimiter() : new KeyRateLimiter(),
    changes,
    clock,
    adminToken,
    sessions: new SessionTokens(clock, sessionTtlMs, new SigningKeys('session', keyring, () => clock.now())),
    outbound,
    jwtVerifier: new JwtTrustVerifier(clock, outbound),
    awsVerifier: new AwsTrustVerifier(outbound),
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
      feed: consoleFeed,
      assets: new ConsoleAssets(),
    },
    proxy,
    metrics,
    readiness,
    scopes,
    serviceHosts: options.publicUrl === undefined ? undefined : serviceHostPattern(options.publicUrl),
  };

  const headersTimeout = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeout = Math.max(options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, headersTimeout);
  const tls = options.tls ? new TlsFiles(options.tls, logger, options.tls.watchIntervalMs) : undefined;
  // One document per server, rendered at its first request.
  const openApi = new OpenApiRoute(vaneOpenApiDocument);
  let listeners: OpenListeners;
  try {
    listeners = await openListeners({
      ...listen,
      tls,
      headersTimeoutMs: headersTimeout,
      requestTimeoutMs: requestTimeout,
      handlerFor: (routes) => createRequestHandler(ctx, logger, openApi, routes),
    });
  } catch (error) {
    tls?.close();
    await release();
    throw error;
  }
  const address = { port: listeners.main.port };
  const host = listen.main.host;
  if (options.rebalance !== false) {
    // Fresh counts from the store on a fleet (unless a test gives its own view); a single process has only itself.
    const counts = options.fleetView || !fleetLog ? new FleetViewStreamCounts(fleet) : fleetLog.streamCounts();
    rebalancer = new Rebalancer(replica.id, counts, hub, metrics, logger, options.rebalance ?? {});
    rebalancer.start();
  }
  let closing: Promise<void> | undefined;
  let draining: Promise<void> | undefined;
  const publicUrl = options.publicUrl;

  const firstKey = (slug: string, prefix: string): string => {
    const service = store.service(slug);
    // Keys are stored hashed: only those this process read from the seed or created are known in full.
    const key = service?.keys.find((k) => k.plaintext?.startsWith(prefix))?.plaintext;
    if (!key) {
      throw new NotFoundError(
        `service "${slug}" has no active ${prefix === 'svs_' ? 'secret' : 'public'} key known to this process ` +
          '(keys are stored hashed: a restarted server knows only those it creates)',
      );
    }
    return key;
  };
  const requireService = (slug: string) => store.requireService(slug);
  const later = <T>(slugs: readonly string[] | 'all', run: () => T): T => changes.commitLater({ slugs, run });

  const running: VaneServer = {
    url: listeners.main.url,
    adminUrl: (listeners.admin ?? listeners.main).url,
    opsUrl: (listeners.ops ?? listeners.admin ?? listeners.main).url,
    metrics,
    readiness,
    drift,
    replica,
    host,
    port: address.port,
    adminToken,
    admin: {
      putService: (slug, service = {}) =>
        later([slug], () => admin.putService(slug, service.kind, OWNER_ACTOR, service.project)),
      putProject: (name) => later([], () => admin.putProject(name, OWNER_ACTOR)),
      createKey: (slug, type) => later([slug], () => admin.createKey(slug, type, OWNER_ACTOR)),
      revokeKey: (slug, key) => later([slug], () => admin.revokeKey(slug, key, OWNER_ACTOR)),
      setConfig: (slug, key, value) => later([slug], () => admin.setConfig(slug, key, value, OWNER_ACTOR)),
      deleteConfig: (slug, key) => later([slug], () => admin.deleteConfig(slug, key, OWNER_ACTOR)),
      setFlag: (slug, key, flag) => later([slug], () => admin.setFlag(slug, key, flag, OWNER_ACTOR).revision),
      patchFlag: (slug, key, patch) => later([slug], () => admin.patchFlag(slug, key, patch, OWNER_ACTOR)),
      deleteFlag: (slug, key) => later([slug], () => admin.deleteFlag(slug, key, OWNER_ACTOR)),
      setSecret: (slug, key, value, type) => later([slug], () => admin.setSecret(slug, key, value, type, OWNER_ACTOR)),
      deleteSecret: (slug, key) => later([slug], () => admin.deleteSecret(slug, key, OWNER_ACTOR)),
      deleteSecretVersion: (slug, key, version) =>
        later([slug], () => admin.deleteSecretVersion(slug, key, version, OWNER_ACTOR)),
      setTenant: (tenant) => later('all', () => admin.setTenant(tenant, OWNER_ACTOR)),
      audit: (slug) => admin.audit(slug),
      putTrust: (slug, name, trust) => {
        later([slug], () => admin.putTrust(slug, name, trust, OWNER_ACTOR));
      },
      deleteTrust: (slug, name) => later([slug], () => admin.deleteTrust(slug, name, OWNER_ACTOR)),
    },
    baseUrl: (slug) =>
      publicUrl === undefined
        ? `${tls ? 'https' : 'http'}://${slug}.localhost:${address.port}`
        : publicUrl.replaceAll('{slug}', slug),
    secretKey: (slug) => firstKey(slug, 'svs_'),
    publicKey: (slug) => firstKey(slug, 'svp_'),
    revision: (slug) => requireService(slug).revision,
    services: () =>
      store.slugs().map((slug) => {
        const service = store.service(slug)!;
        const keys = service.keys.flatMap((k) => (k.plaintext === undefined ? [] : [k.plaintext]));
        return {
          slug,
          kind: service.kind,
          revision: service.revision,
          keys,
          keyHints: service.keys.map((k) => k.hint),
        };
      }),
    stats: () => hub.stats(),
    settled: () => changes.whenDurable(),
    close: () =>
      (closing ??= (async () => {
        rebalancer?.stop();
        tls?.close();
        consoleFeed.close();
        hub.close();
        store.close();
        await Promise.all(
          listeners.all.map(
            ({ server }) =>
              new Promise<void>((resolve) => {
                server.close(() => resolve());
                server.closeAllConnections();
              }),
          ),
        );
        await changes.close();
        await opened.release();
      })()),
    rebalance: () => rebalancer?.tick() ?? Promise.resolve(0),
    drain() {
      return (draining ??= (async () => {
        rebalancer?.stop();
        const timeoutMs = options.drainTimeoutMs ?? 10_000;
        await drainStreams({ hub, readiness, metrics, logger }, options.drainWindowMs ?? 10_000, timeoutMs);
        // In-flight requests (a write waiting to be durable) finish; idle keep-alive connections go now.
        await Promise.all(
          listeners.all.map(
            ({ server }) =>
              new Promise<void>((resolve) => {
                const timer = setTimeout(resolve, timeoutMs);
                server.close(() => {
                  clearTimeout(timer);
                  resolve();
                });
                server.closeIdleConnections();
              }),
          ),
        );
        logger.info('drained', { event: 'drain_finished' });
        await running.close();
      })());
    },
  };
  return running;
}

/** The listeners the options ask for; a bad address is a RangeError naming the option. */
function listenPlan(options: VaneServerOptions): Pick<ListenerPlan, 'main' | 'admin' | 'ops'> {
  const parse = (name: 'adminListen' | 'opsListen'): ListenAddress | undefined => {
    const value = options[name];
    if (value === undefined) return undefined;
    const address = parseListenAddress(value);
    if (typeof address === 'string') throw new RangeError(`${name}: ${address}`);
    return address;
  };
  return {
    main: { host: options.host ?? '127.0.0.1', port: options.port ?? 0 },
    admin: parse('adminListen'),
    ops: parse('opsListen'),
  };
}
