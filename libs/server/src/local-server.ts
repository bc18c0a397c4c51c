import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock, type Clock } from './domain/clock.js';
import { ConsoleAssets } from './console/console-assets.js';
import { ConsoleFeed } from './console/console-feed.js';
import { ConsoleSessions } from './console/console-sessions.js';
import { createRequestHandler } from './http/request-handler.js';
import { SESSION_IDENTITY_PREFIX } from './http/service-routes.js';
import type { ServerContext } from './http/server-context.js';
import { silentLogger, type LocalServerLogger } from './logger.js';
import {
  DEFAULT_PROJECT,
  DEFAULT_TENANT,
  type AbRule,
  type AuditEntry,
  type ConfigValue,
  type ServerData,
  type TenantState,
} from './domain/model.js';
import { KeyRateLimiter } from './domain/rate-limiter.js';
import { FailedAttemptThrottle, type FailedAttemptThrottleOptions } from './domain/failed-attempt-throttle.js';
import { parseServerData, readServerDataFile } from './seed/seed-parser.js';
import { SnapshotRenderer, type Audience } from './domain/snapshot-renderer.js';
import { SessionTokens } from './domain/session-tokens.js';
import { AdminApi } from './admin-api.js';
import { OWNER_ACTOR } from './domain/actors.js';
import { NotFoundError } from './domain/not-found-error.js';
import { MemoryChangeLog, type ChangeLog } from './domain/change-log.js';
import { StateJournal } from './persistence/state-journal.js';
import { SealingCodec } from './sealing/sealing-codec.js';
import { resolveKeyring } from './sealing/root-key-source.js';
import { SealingControl } from './sealing/sealing-control.js';
import { Store, type SecretWriteResult } from './domain/store.js';
import { sseFrame, StreamHub, type StreamStats } from './domain/stream-hub.js';
import { AwsTrustVerifier } from './trust-verifiers/aws-trust-verifier.js';
import { JwtTrustVerifier } from './trust-verifiers/jwt-trust-verifier.js';

/** How long a workload-identity session lives unless `sessionTtlMs` says otherwise, in milliseconds. */
export const DEFAULT_SESSION_TTL_MS = 3_600_000;

/** Default of `headersTimeoutMs`, in milliseconds. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;

/** Default of `requestTimeoutMs`, in milliseconds. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** A seed document (PROTOCOL §11), for seeds written in code. */
export interface LocalServerSeed {
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
      flags?: Record<string, LocalServerFlagInput>;
      secrets?: Record<
        string,
        { type?: 'text' | 'file'; value: string } | { type?: 'text' | 'file'; versions: string[] }
      >;
      /** Workload-identity trusts by name (PROTOCOL §8). */
      trusts?: Record<string, LocalServerTrustInput>;
    }
  >;
}

/**
 * A workload-identity trust as the seed and the admin API take it. Each
 * maps a platform identity to its service and one key type.
 */
export type LocalServerTrustInput =
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
export interface LocalServerFlagInput {
  is_enabled: boolean;
  /** RFC 3339; null or absent for unbounded. */
  starts_at?: string | null;
  /** RFC 3339; null or absent for unbounded. */
  ends_at?: string | null;
  ab?: AbRule | null;
}

/** A partial update of a flag: the members given change, the others stay. */
export interface LocalServerFlagPatch {
  is_enabled?: boolean;
  /** RFC 3339, or null to remove the start of the schedule. */
  starts_at?: string | null;
  /** RFC 3339, or null to remove the end of the schedule. */
  ends_at?: string | null;
  /** A new A/B rule, or null to remove it. */
  ab?: AbRule | null;
}

/** Options of {@link startLocalServer}. */
export interface LocalServerOptions {
  /** The seed: a document, or the path of a JSON seed file. Default: no services. */
  seed?: LocalServerSeed | string;
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
   * milliseconds (whole seconds are used, at least 1 s). Sessions are signed
   * with a key made at start, so a restart ends them all.
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
  clock?: Clock;
  /** Where to log. @default silent */
  logger?: LocalServerLogger;
}

/** Changes the local server's data in process, as the admin API would; each returns at once. */
export interface LocalServerAdmin {
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
  setFlag(slug: string, key: string, flag: LocalServerFlagInput): number;
  /**
   * Changes only the members of an existing flag that `patch` names
   * (`ab: null` removes the rule, a `null` schedule end removes that end);
   * returns the new revision. Throws a `NotFoundError` for an unknown flag.
   */
  patchFlag(slug: string, key: string, patch: LocalServerFlagPatch): number;
  /** Deletes a flag; returns the new revision. */
  deleteFlag(slug: string, key: string): number;
  /** Adds a secret version. */
  setSecret(slug: string, key: string, value: string, type?: 'text' | 'file'): SecretWriteResult;
  /** Deletes every version of a secret; returns the new revision. */
  deleteSecret(slug: string, key: string): number;
  /** Deletes one version of a secret; returns the new revision. */
  deleteSecretVersion(slug: string, key: string, version: number): number;
  /** Changes the tenant's billing, add-on, quarantine or rate-limit settings. */
  setTenant(tenant: Partial<TenantState>): Readonly<TenantState>;
  /** The secret audit trail of a service (never values). */
  audit(slug: string): readonly AuditEntry[];
  /** Creates or replaces a workload-identity trust; replacing one ends the sessions it issued. */
  putTrust(slug: string, name: string, trust: LocalServerTrustInput): void;
  /** Deletes a trust; the sessions it issued answer 401 from now on. */
  deleteTrust(slug: string, name: string): void;
}

/** One service as {@link LocalServer.services} lists it. */
export interface LocalServiceSummary {
  slug: string;
  kind: string;
  revision: number;
  /** Active keys, secret and public, that this process knows in full (from the seed, or created since it started). */
  keys: string[];
}

/** A running local server. */
export interface LocalServer {
  /** `http://<host>:<port>`: the admin API's address. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** The admin API's bearer token. */
  readonly adminToken: string;
  /** In-process admin operations. */
  readonly admin: LocalServerAdmin;
  /** The service's `{base_url}`: `http://<slug>.localhost:<port>`. */
  baseUrl(slug: string): string;
  /** The service's first active secret key. */
  secretKey(slug: string): string;
  /** The service's first active public key. */
  publicKey(slug: string): string;
  /** The service's current revision. */
  revision(slug: string): number;
  /** Every service with its kind, revision and active keys. */
  services(): LocalServiceSummary[];
  /** Open streams, dropped slow consumers and the bytes kept for replay. */
  stats(): StreamStats;
  /** Ends open streams, stops timers, writes pending state and stops listening. Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts a complete Vane service on loopback.
 *
 * @example
 * const server = await startLocalServer({ seed: 'vane.seed.json' });
 * const client = await VaneClient.create({ baseUrl: server.baseUrl('shop'), apiKey: server.secretKey('shop') });
 * server.admin.setFlag('shop', 'new-checkout', { is_enabled: false });
 * await server.close();
 */
export async function startLocalServer(options: LocalServerOptions = {}): Promise<LocalServer> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  // Options are checked before anything is opened, so a bad one leaves nothing to clean up.
  const authThrottle = options.authThrottle === false ? undefined : new FailedAttemptThrottle(options.authThrottle);
  const bufferBytes = options.streamBufferBytes ?? 1024 * 1024;
  const historyBytes = options.historyBytes ?? 2 * bufferBytes;
  if (!(historyBytes >= 0)) throw new RangeError('historyBytes must be a number of bytes of at least 0');
  const { data, changes, codec, keyFile } = await openData(options, logger, new Date(clock.now()));
  const pingIntervalMs = options.pingIntervalMs ?? 15_000;
  // The web console follows every change and every stream opening or closing.
  const consoleFeed = new ConsoleFeed(pingIntervalMs);
  const hub = new StreamHub({
    pingIntervalMs,
    historySize: options.historySize ?? 1000,
    historyBytes,
    bufferBytes,
    onStreamsChanged: () => consoleFeed.notify(),
  });
  // Assigned once below: the store's change callback needs the renderer, and the renderer needs the store.
  // eslint-disable-next-line prefer-const
  let renderer: SnapshotRenderer | undefined;
  const store = new Store(data, clock, {
    change(change) {
      const frame = (audience: Audience): Buffer =>
        Buffer.from(sseFrame('patch', change.revision, JSON.stringify(renderer!.patch(change, audience))));
      // Rendered now, from the data as this revision left it; sent once the revision is durable.
      const patch = {
        base: change.base,
        revision: change.revision,
        frames: { secret: frame('secret'), public: frame('public') },
      };
      changes.afterDurable(() => hub.publish(change.slug, patch));
    },
    mutation: (change) => {
      changes.record(change);
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
  });
  renderer = new SnapshotRenderer(store);
  for (const slug of store.slugs()) hub.setRevision(slug, store.service(slug)!.revision);
  const adminToken = options.adminToken ?? randomBytes(24).toString('base64url');
  const sessionTtlMs = options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS;
  if (!Number.isFinite(sessionTtlMs) || sessionTtlMs < 1000) {
    store.close();
    await changes.close();
    throw new RangeError('sessionTtlMs must be a number of milliseconds of at least 1000');
  }
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
    limiter: new KeyRateLimiter(),
    changes,
    clock,
    adminToken,
    sessions: new SessionTokens(clock, sessionTtlMs),
    jwtVerifier: new JwtTrustVerifier(clock),
    awsVerifier: new AwsTrustVerifier(),
    authThrottle,
    console: { sessions: new ConsoleSessions(), feed: consoleFeed, assets: new ConsoleAssets() },
  };

  const headersTimeout = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeout = Math.max(options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, headersTimeout);
  const server = createServer(
    {
      noDelay: true,
      requireHostHeader: false,
      // Both bound only the reading of a request: a stream's response runs as long as it likes.
      headersTimeout,
      requestTimeout,
      // How often the limits are checked; the default (30 s) would let a short limit run long.
      connectionsCheckingInterval: Math.min(1000, Math.max(10, Math.floor(headersTimeout / 4))),
    },
    createRequestHandler(ctx, logger),
  );
  try {
    await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  } catch (error) {
    store.close();
    await changes.close();
    throw error;
  }
  const address = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  const urlHost = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;

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

  return {
    url: `http://${urlHost}:${address.port}`,
    host,
    port: address.port,
    adminToken,
    admin: {
      putService: (slug, service = {}) => admin.putService(slug, service.kind, OWNER_ACTOR, service.project),
      putProject: (name) => admin.putProject(name, OWNER_ACTOR),
      createKey: (slug, type) => admin.createKey(slug, type, OWNER_ACTOR),
      revokeKey: (slug, key) => admin.revokeKey(slug, key, OWNER_ACTOR),
      setConfig: (slug, key, value) => admin.setConfig(slug, key, value, OWNER_ACTOR),
      deleteConfig: (slug, key) => admin.deleteConfig(slug, key, OWNER_ACTOR),
      setFlag: (slug, key, flag) => admin.setFlag(slug, key, flag, OWNER_ACTOR).revision,
      patchFlag: (slug, key, patch) => admin.patchFlag(slug, key, patch, OWNER_ACTOR),
      deleteFlag: (slug, key) => admin.deleteFlag(slug, key, OWNER_ACTOR),
      setSecret: (slug, key, value, type) => admin.setSecret(slug, key, value, type, OWNER_ACTOR),
      deleteSecret: (slug, key) => admin.deleteSecret(slug, key, OWNER_ACTOR),
      deleteSecretVersion: (slug, key, version) => admin.deleteSecretVersion(slug, key, version, OWNER_ACTOR),
      setTenant: (tenant) => admin.setTenant(tenant, OWNER_ACTOR),
      audit: (slug) => admin.audit(slug),
      putTrust: (slug, name, trust) => {
        admin.putTrust(slug, name, trust, OWNER_ACTOR);
      },
      deleteTrust: (slug, name) => admin.deleteTrust(slug, name, OWNER_ACTOR),
    },
    baseUrl: (slug) => `http://${slug}.localhost:${address.port}`,
    secretKey: (slug) => firstKey(slug, 'svs_'),
    publicKey: (slug) => firstKey(slug, 'svp_'),
    revision: (slug) => requireService(slug).revision,
    services: () =>
      store.slugs().map((slug) => {
        const service = store.service(slug)!;
        const keys = service.keys.flatMap((k) => (k.plaintext === undefined ? [] : [k.plaintext]));
        return { slug, kind: service.kind, revision: service.revision, keys };
      }),
    stats: () => hub.stats(),
    close: () =>
      (closing ??= (async () => {
        consoleFeed.close();
        hub.close();
        store.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await changes.close();
      })()),
  };
}

/** The data to serve and where its changes go: a journal beside the state file, or nowhere. */
async function openData(
  options: LocalServerOptions,
  logger: LocalServerLogger,
  now: Date,
): Promise<{ data: ServerData; changes: ChangeLog; codec: SealingCodec | undefined; keyFile: string | undefined }> {
  const seed = (): ServerData => {
    if (typeof options.seed === 'string') return readServerDataFile(options.seed, { now });
    if (options.seed) return parseServerData(options.seed, 'seed', { now });
    return {
      tenant: { ...DEFAULT_TENANT },
      services: new Map(),
      audit: [],
      projects: new Map([[DEFAULT_PROJECT, { created_at: null }]]),
      tokens: new Map(),
    };
  };
  if (!options.statePath) {
    return { data: seed(), changes: new MemoryChangeLog(), codec: undefined, keyFile: undefined };
  }
  const { keyring, source, created } = resolveKeyring(options);
  if (created) logger.info(`made a root key for ${options.statePath} in ${created} (mode 0600): back it up apart`);
  else logger.info(`sealing ${options.statePath} with root key ${keyring.primary.id} (from ${source})`);
  const codec = new SealingCodec(keyring);
  const { journal, data, recovery } = await StateJournal.open(options.statePath, {
    initial: seed,
    codec,
    // Flags may have turned while the server was down: a new revision makes every client re-check.
    onRestore: (restored) => {
      for (const service of restored.services.values()) service.revision += 1;
    },
    onError: (error) => logger.error(`could not write state: ${error.message}`),
  });
  if (recovery.droppedBytes > 0) {
    logger.info(`dropped the torn last record of the journal (${recovery.droppedBytes} bytes, never acknowledged)`);
  }
  if (recovery.removedLeftovers.length > 0) {
    logger.info(`removed ${recovery.removedLeftovers.length} temporary file(s) of an interrupted state write`);
  }
  const keyFile = source === 'VANE_ROOT_KEY' ? undefined : source;
  return { data, changes: journal, codec, keyFile };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}
