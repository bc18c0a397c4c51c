/**
 * The first step of a start: every option read, defaulted and checked
 * before anything is opened, so a bad one leaves nothing to clean up.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { systemClock, type TimerClock } from '../domain/clock.js';
import { checkFailedAttemptThrottleOptions } from '../domain/failed-attempt-throttle.js';
import { parseListenAddress, type ListenAddress } from '../ops/listen-address.js';
import { silentLogger, type VaneServerLogger } from '../observability/logger.js';
import type { ListenerPlan } from '../ops/server-listeners.js';
import { ProxyTrust } from '../ops/proxy-trust.js';
import { RequestScopes } from '../ops/request-scope.js';
import { OutboundPolicy } from '../outbound/outbound-policy.js';
import { SIGNING_KEY_PERIOD_MS } from '../auth/signing-keys.js';
import { parseStoreLocation, type StoreLocation } from './store-location.js';
import { VANE_SERVER_DEFAULTS as DEFAULTS, type VaneServerOptions } from './vane-server-options.js';

/** The options of a start, read and checked, with their defaults filled in. */
export interface StartSettings {
  readonly clock: TimerClock;
  /** Gives every line written inside a request that request's id. */
  readonly scopes: RequestScopes;
  /** The logger, wrapped by {@link scopes}. */
  readonly logger: VaneServerLogger;
  readonly proxy: ProxyTrust;
  readonly outbound: OutboundPolicy;
  readonly listen: Pick<ListenerPlan, 'main' | 'admin' | 'ops'>;
  readonly location: StoreLocation;
  readonly replicaId: string;
  readonly pingIntervalMs: number;
  readonly bufferBytes: number;
  readonly historyBytes: number;
  readonly adminToken: string;
  readonly sessionTtlMs: number;
  readonly headersTimeoutMs: number;
  /** Never shorter than {@link headersTimeoutMs}. */
  readonly requestTimeoutMs: number;
}

/** Reads the options of a start; a bad one is a RangeError naming it. */
export function startSettings(options: VaneServerOptions): StartSettings {
  const scopes = new RequestScopes();
  if (options.authThrottle !== false) checkFailedAttemptThrottleOptions(options.authThrottle);
  const bufferBytes = options.streamBufferBytes ?? DEFAULTS.streamBufferBytes;
  const historyBytes = options.historyBytes ?? 2 * bufferBytes;
  if (!(historyBytes >= 0)) throw new RangeError('historyBytes must be a number of bytes of at least 0');
  const sessionTtlMs = options.sessionTtlMs ?? DEFAULTS.sessionTtlMs;
  if (!Number.isFinite(sessionTtlMs) || sessionTtlMs < 1000 || sessionTtlMs > SIGNING_KEY_PERIOD_MS) {
    throw new RangeError(
      `sessionTtlMs must be a number of milliseconds from 1000 to ${SIGNING_KEY_PERIOD_MS} (its signing key's period)`,
    );
  }
  const headersTimeoutMs = options.headersTimeoutMs ?? DEFAULTS.headersTimeoutMs;
  const adminToken = options.adminToken ?? randomBytes(24).toString('base64url');
  return {
    clock: options.clock ?? systemClock,
    scopes,
    logger: scopes.wrap(options.logger ?? silentLogger, [adminToken]),
    proxy: new ProxyTrust(options.trustProxy),
    outbound: new OutboundPolicy(options.allowOutbound),
    listen: listenPlan(options),
    location: parseStoreLocation(
      options.store ?? (options.statePath === undefined ? 'memory' : `file:${options.statePath}`),
    ),
    replicaId: options.replicaId ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
    pingIntervalMs: options.pingIntervalMs ?? DEFAULTS.pingIntervalMs,
    bufferBytes,
    historyBytes,
    adminToken,
    sessionTtlMs,
    headersTimeoutMs,
    requestTimeoutMs: Math.max(options.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs, headersTimeoutMs),
  };
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
    main: { host: options.host ?? DEFAULTS.host, port: options.port ?? DEFAULTS.port },
    admin: parse('adminListen'),
    ops: parse('opsListen'),
  };
}
