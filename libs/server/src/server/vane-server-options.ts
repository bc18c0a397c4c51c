/**
 * The options of `startVaneServer` and their defaults.
 *
 * @module
 */
import type { TimerClock } from '../domain/clock.js';
import type { FailedAttemptThrottleOptions } from '../domain/failed-attempt-throttle.js';
import type { FleetView, LocalReplica } from '../fleet/fleet-view.js';
import type { RebalanceOptions } from '../fleet/rebalancer.js';
import type { VaneServerLogger } from '../observability/logger.js';
import type { ReadinessCheck } from '../observability/readiness.js';
import type { VaneServerSeed } from './server-inputs.js';

/** How long a workload-identity session lives unless `sessionTtlMs` says otherwise, in milliseconds. */
export const DEFAULT_SESSION_TTL_MS = 3_600_000;

/**
 * The defaults of {@link VaneServerOptions} that are plain values, one home
 * for all who need them: `startVaneServer` fills them in, the command line's
 * options (`config/server-options.ts`) start from them, and the options'
 * `@default` lines say them (`vane-server-options.spec.ts` holds each line to
 * this table). A default that depends on another option or on the program
 * (`historyBytes`, the command line's port) is written where it is decided.
 */
export const VANE_SERVER_DEFAULTS = Object.freeze({
  port: 0,
  host: '127.0.0.1',
  storeCheckIntervalMs: 5000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  pingIntervalMs: 15_000,
  historySize: 1000,
  streamBufferBytes: 1024 * 1024,
  sessionTtlMs: DEFAULT_SESSION_TTL_MS,
  drainWindowMs: 10_000,
  drainTimeoutMs: 10_000,
  driftBoundMs: 30_000,
  /** `tls.watchIntervalMs`. */
  tlsWatchIntervalMs: 1000,
});

/** Options of `startVaneServer`. */
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
  /** Stream rebalancing across the fleet; `false` turns it off. @default on, each member at its own default ({@link RebalanceOptions}) */
  rebalance?: RebalanceOptions | false;
}
