/**
 * Options of the client, their defaults, and their validation.
 *
 * @packageDocumentation
 */
import { SchemaValidator } from './schema/schema-validator.js';
import type { VaneSchema } from './schema/vane-schema.js';
import type { Dispatcher } from 'undici';
import { ApiKeyCredentials, type Credentials } from './http/credentials.js';
import { InvalidArgumentError } from './errors.js';
import { resolveAbCache, type AbCacheOptions, type ResolvedAbCache } from './ab/ab-cache-options.js';
import {
  resolveLastKnownGood,
  type LastKnownGoodOptions,
  type ResolvedLastKnownGood,
} from './last-known-good/last-known-good-options.js';
import { consoleLogger, type VaneLogger } from './util/logger.js';
import { systemClock, systemTimers, type Clock, type Timers } from './util/timers.js';
import { transportFor, type Transport } from './http/transport.js';
import { WorkloadIdentityCredentials } from './workload-identity/workload-identity-credentials.js';
import { ClientTelemetry } from './telemetry/client-telemetry.js';
import { resolveTelemetryOptions, type VaneTelemetryOptions } from './telemetry/telemetry-options.js';
import type { WorkloadIdentityOptions } from './workload-identity/workload-identity-options.js';

/** Options of {@link VaneClient.create}. */
export interface VaneClientOptions {
  /**
   * The service's base URL, e.g. `https://shop.vane.example` or
   * `http://shop.localhost:4400`. The host is sent as is in `Host`; names
   * under `.localhost` are resolved to 127.0.0.1 by the client itself.
   */
  baseUrl: string;
  /**
   * Static API key: `svs_…` (secret key) or `svp_…` (public key). A
   * malformed key is refused before any request. Give `apiKey`,
   * `workloadIdentity` or `credentials`. Precedence: `credentials`, then
   * `apiKey`, then `workloadIdentity` — a static key set together with
   * `workloadIdentity` wins (workload identity is not started and a warning
   * is logged), and `keyType` is the key's.
   */
  apiKey?: string;
  /**
   * Workload identity federation: exchange the platform identity
   * (Kubernetes, AWS, GCP, Azure) for a session instead of using a static
   * key. `keyType` is then `''`. Ignored when `apiKey` or `credentials` is set.
   * @default off
   */
  workloadIdentity?: WorkloadIdentityOptions;
  /**
   * Custom credentials (e.g. workload identity): they supply the headers of
   * every request and are told of 401 answers.
   * @default credentials from `apiKey`
   */
  credentials?: Credentials;
  /**
   * Cache TTL, in milliseconds: the background conditional sync runs every
   * `ttlMs` whether or not the stream is connected (a 304 costs no parsing).
   * @default 60000
   */
  ttlMs?: number;
  /**
   * Timeout of every HTTP call, in milliseconds (whole answer for calls;
   * status and headers for the stream).
   * @default 10000
   */
  timeoutMs?: number;
  /**
   * Use the live SSE stream. `false` polls every `ttlMs` only (serverless,
   * short-lived runtimes).
   * @default true
   */
  stream?: boolean;
  /**
   * Consecutive stream transport errors after which the client falls back
   * to polling and reports `connected === false`.
   * @default 3
   */
  streamErrorThreshold?: number;
  /**
   * Time spent polling after a fallback before the stream is tried again, in milliseconds.
   * @default 60000
   */
  streamCooldownMs?: number;
  /**
   * How long a stream connection must stay open to count as successful, in
   * milliseconds. Only then is the error count (and the backoff) reset: a
   * stream that a server or proxy accepts and then cuts sooner is a transport
   * error like any other, so it cannot hold the client in a reconnect loop.
   * @default 60000
   */
  streamHealthyMs?: number;
  /**
   * Longest wait the client accepts from a 429 (`Retry-After`, or a
   * quarantine's `until`), in milliseconds. While it waits neither the stream
   * nor the sync asks, `connected` is false and `status.mode` is
   * `rate-limited` or `quarantined` with `status.retryAt`. Raise it to obey
   * long waits in full.
   * @default 300000 (five minutes)
   */
  maxRetryAfterMs?: number;
  /**
   * Silence on the stream (no byte, not even a `: ping`) treated as a
   * transport error, in milliseconds. The server pings every 15 s.
   * @default 45000
   */
  streamIdleTimeoutMs?: number;
  /**
   * First stream reconnect delay, in milliseconds; it doubles on each
   * consecutive error, with jitter (up to half taken off at random).
   * @default 1000
   */
  backoffMinMs?: number;
  /**
   * Upper bound of the stream reconnect delay, in milliseconds.
   * @default 30000
   */
  backoffMaxMs?: number;
  /**
   * How long a revision that was replaced may still be read by the pinned
   * scopes and snapshots holding it (`runPinned()`, `snapshot()`, a request
   * of `@vane/nestjs` or `@vane/express`), in milliseconds, counted from
   * the moment a newer revision was installed. Past it, the revision is let
   * go: scopes still running read live, file secrets of that revision are
   * removed, its memory can be reclaimed. It bounds what a scope that never
   * ends (a leaked promise) can hold, and how far behind the service a
   * pinned read can be. `0` lets go at once: pinned scopes read live as
   * soon as a change lands. `Infinity` never lets go (a revision is then
   * held exactly as long as a scope holds it). The adapters' requests on a
   * revision without file secrets are not counted: such a revision stays
   * readable while any request reaches it, and at most this long after
   * it was replaced.
   * @default 60000
   */
  pinMaxAgeMs?: number;
  /**
   * Directory for file secrets. Created if absent and set to mode 0700;
   * files are 0600. Only the client's files are removed on close.
   * @default a fresh private directory under `os.tmpdir()`, removed on close
   */
  secretsDir?: string;
  /**
   * Start from a last-known-good backup of the snapshot when the service
   * cannot be reached: `{ store, encryptionKey?, maxAgeMs?, initTimeoutMs? }`
   * (see {@link LastKnownGoodOptions}). The client saves every snapshot it
   * applies to `store`; a start that fails on the network, a timeout, a 5xx,
   * a 429 or a 402 serves the backup and reports `stale` until the service
   * answers. 401 and 404 still fail the start.
   * @default off: the initial sync is blocking and any failure stops the start
   */
  lastKnownGood?: LastKnownGoodOptions;
  /**
   * Where the client logs. Keys appear only redacted (`svs_…abcd`), secret values never.
   * @default warnings and errors to `console`
   */
  logger?: VaneLogger;
  /**
   * An undici dispatcher to send every request through (a corporate proxy
   * agent, a mock agent…). The client does not close it. When given, it is
   * responsible for resolving `.localhost` names.
   * @default an `Agent` that resolves `.localhost` to 127.0.0.1, or undici's
   * `EnvHttpProxyAgent` when `HTTPS_PROXY`/`HTTP_PROXY` is set (honouring `NO_PROXY`)
   * for non-loopback hosts
   */
  dispatcher?: Dispatcher;
  /**
   * Replaces HTTP altogether (tests, other runtimes). Takes precedence over `dispatcher`.
   * @default an undici transport on `dispatcher`
   */
  transport?: Transport;
  /** Clock, for tests. @default `Date.now` */
  clock?: Clock;
  /** Timers, for tests (TTL, backoff, timeouts). @default Node's timers, unref'd */
  timers?: Timers;
  /** Randomness in [0, 1) for backoff jitter, for tests. @default `Math.random` */
  random?: () => number;
  /**
   * The app's schema: a Standard Schema validator (zod, valibot, arktype, …)
   * per config key, checked before every value goes live. A required key
   * missing or invalid in the first snapshot fails `create()` with
   * `ConfigInvalidError`; later, a failing value keeps the key's last valid
   * one (the rest of the update applies) and is reported through `onInvalid`.
   * Readers get the validators' outputs (coercions, defaults). Build it with
   * `defineSchema()` to type reads. Validators must be synchronous.
   * @default none: values are served as the service sends them
   */
  schema?: VaneSchema;
  /**
   * OpenTelemetry: sync-health metrics, a span per call to the service and
   * flag decisions as `feature_flag.evaluation` span events (see the
   * README's "Telemetry"). Recorded only when `@opentelemetry/api` is
   * installed and the app registered an SDK (metrics: before `create()`);
   * otherwise nothing is loaded and nothing recorded. Reads never record.
   * `false` turns it off; `{ recordUserId: true }` adds the user id of flag
   * evaluations to their events.
   * @default true (on, without user ids)
   */
  telemetry?: boolean | VaneTelemetryOptions;
  /**
   * Cache of A/B answers (`evaluateAb`, and so every adapter's A/B guards):
   * an answer is reused for the same flag, user id and attributes (compared
   * as data, in any order) as long as the service's revision has not moved,
   * for at most `maxAgeMs`, within `maxEntries` and `maxBytes` (least
   * recently used out first). Concurrent questions for the same answer make
   * one call. Errors are never cached. `false` turns it off: every
   * evaluation is then one call. Counters: `client.abCacheStats`.
   * @default on, `{ maxAgeMs: 60000, maxEntries: 10000, maxBytes: 8388608 }`
   */
  abCache?: AbCacheOptions | boolean;
}

/** Options after defaults and validation. Internal. */
export interface ResolvedOptions {
  readonly baseUrl: URL;
  readonly credentials: Credentials;
  readonly ttlMs: number;
  readonly timeoutMs: number;
  readonly stream: boolean;
  readonly streamErrorThreshold: number;
  readonly streamCooldownMs: number;
  readonly streamIdleTimeoutMs: number;
  readonly streamHealthyMs: number;
  readonly maxRetryAfterMs: number;
  readonly backoffMinMs: number;
  readonly backoffMaxMs: number;
  readonly pinMaxAgeMs: number;
  readonly secretsDir: string | undefined;
  readonly lastKnownGood: ResolvedLastKnownGood | undefined;
  readonly logger: VaneLogger;
  readonly transport: Transport;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly random: () => number;
  readonly schema: SchemaValidator | undefined;
  /** `undefined`: A/B answers are not cached. */
  readonly abCache: ResolvedAbCache | undefined;
  /** Telemetry (it wraps `transport` and `timers` when on). */
  readonly telemetry: ClientTelemetry;
}

/** Defaults of every optional duration and count, in milliseconds where durations. */
export const DEFAULTS = Object.freeze({
  ttlMs: 60_000,
  timeoutMs: 10_000,
  streamErrorThreshold: 3,
  streamCooldownMs: 60_000,
  streamIdleTimeoutMs: 45_000,
  streamHealthyMs: 60_000,
  maxRetryAfterMs: 300_000,
  backoffMinMs: 1_000,
  backoffMaxMs: 30_000,
  pinMaxAgeMs: 60_000,
});

function positive(name: string, value: unknown, fallback: number, integer = false): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new InvalidArgumentError(
      `${name} must be a positive ${integer ? 'integer' : 'number'}${name.endsWith('Ms') ? ' of milliseconds' : ''}`,
    );
  }
  return value;
}

/**
 * Validates a base URL: http(s), no credentials, query or fragment.
 *
 * @throws InvalidArgumentError
 */
export function parseBaseUrl(value: unknown): URL {
  if (typeof value !== 'string' || value === '')
    throw new InvalidArgumentError('baseUrl must be a URL such as "https://shop.vane.example"');
  if (!value.includes('://'))
    // `new URL('shop.localhost:4400')` parses, with `shop.localhost:` as its scheme.
    throw new InvalidArgumentError(
      'baseUrl has no scheme: add "https://" in front (or "http://" for the local server), e.g. "http://shop.localhost:4400"',
    );
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('baseUrl is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InvalidArgumentError(`baseUrl must use http or https, not ${url.protocol}`);
  if (url.username !== '' || url.password !== '')
    throw new InvalidArgumentError('baseUrl must not contain credentials; pass apiKey instead');
  if (url.search !== '' || url.hash !== '')
    throw new InvalidArgumentError('baseUrl must not have a query or a fragment');
  return url;
}

/**
 * Builds credentials from `credentials`, `apiKey` or `workloadIdentity`, in
 * that order of precedence.
 *
 * @throws InvalidArgumentError
 */
export function resolveCredentials(options: {
  apiKey?: string;
  credentials?: Credentials;
  workloadIdentity?: WorkloadIdentityOptions;
}): Credentials {
  if (options.credentials !== undefined) return options.credentials;
  if (options.apiKey !== undefined) return new ApiKeyCredentials(options.apiKey);
  if (options.workloadIdentity !== undefined) return new WorkloadIdentityCredentials(options.workloadIdentity);
  throw new InvalidArgumentError('apiKey is required (svs_… or svp_…), or give workloadIdentity or credentials');
}

/**
 * Applies defaults and validates every option, before anything is opened.
 *
 * @throws InvalidArgumentError - naming the option.
 */
export function resolveOptions(options: VaneClientOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('options must be an object');
  const baseUrl = parseBaseUrl(options.baseUrl);
  const credentials = resolveCredentials(options);
  const logger = options.logger ?? consoleLogger;
  if (options.workloadIdentity !== undefined && (options.apiKey !== undefined || options.credentials !== undefined)) {
    logger.warn(
      `workloadIdentity is ignored: ${options.credentials !== undefined ? 'credentials' : 'apiKey'} is set and takes precedence`,
    );
  }
  const backoffMinMs = positive('backoffMinMs', options.backoffMinMs, DEFAULTS.backoffMinMs);
  const backoffMaxMs = positive('backoffMaxMs', options.backoffMaxMs, Math.max(DEFAULTS.backoffMaxMs, backoffMinMs));
  if (backoffMaxMs < backoffMinMs) throw new InvalidArgumentError('backoffMaxMs must be at least backoffMinMs');
  if (options.secretsDir !== undefined && (typeof options.secretsDir !== 'string' || options.secretsDir === '')) {
    throw new InvalidArgumentError('secretsDir must be a non-empty path');
  }
  const numbers = {
    ttlMs: positive('ttlMs', options.ttlMs, DEFAULTS.ttlMs),
    timeoutMs: positive('timeoutMs', options.timeoutMs, DEFAULTS.timeoutMs),
    streamErrorThreshold: positive(
      'streamErrorThreshold',
      options.streamErrorThreshold,
      DEFAULTS.streamErrorThreshold,
      true,
    ),
    streamCooldownMs: positive('streamCooldownMs', options.streamCooldownMs, DEFAULTS.streamCooldownMs),
    streamIdleTimeoutMs: positive('streamIdleTimeoutMs', options.streamIdleTimeoutMs, DEFAULTS.streamIdleTimeoutMs),
    streamHealthyMs: positive('streamHealthyMs', options.streamHealthyMs, DEFAULTS.streamHealthyMs),
    maxRetryAfterMs: positive('maxRetryAfterMs', options.maxRetryAfterMs, DEFAULTS.maxRetryAfterMs),
  };
  const pinMaxAgeMs = options.pinMaxAgeMs ?? DEFAULTS.pinMaxAgeMs;
  if (typeof pinMaxAgeMs !== 'number' || Number.isNaN(pinMaxAgeMs) || pinMaxAgeMs < 0)
    throw new InvalidArgumentError('pinMaxAgeMs must be a number of milliseconds >= 0 (Infinity: no limit)');
  if (options.stream !== undefined && typeof options.stream !== 'boolean')
    throw new InvalidArgumentError('stream must be a boolean');
  if (options.schema !== undefined && (typeof options.schema !== 'object' || options.schema === null))
    throw new InvalidArgumentError('schema must be an object: { configs?, flags?, strict? } (see defineSchema)');
  const schema = options.schema === undefined ? undefined : new SchemaValidator(options.schema);
  const abCache = resolveAbCache(options.abCache);
  // The backup's key comes from the static key only when that key is what authenticates.
  const staticKey = options.credentials === undefined ? options.apiKey : undefined;
  const lastKnownGood = resolveLastKnownGood(options.lastKnownGood, baseUrl, staticKey);
  const clock = options.clock ?? systemClock;
  const telemetry = new ClientTelemetry({
    options: resolveTelemetryOptions(options.telemetry),
    baseUrl,
    clock,
    logger,
  });
  // Built last, once every option is known to be valid, so a refusal leaves nothing open.
  const transport = transportFor(options, baseUrl);
  return {
    baseUrl,
    credentials,
    ...numbers,
    stream: options.stream ?? true,
    backoffMinMs,
    backoffMaxMs,
    pinMaxAgeMs,
    secretsDir: options.secretsDir,
    lastKnownGood,
    logger,
    transport: telemetry.traced(transport),
    clock,
    timers: telemetry.detached(options.timers ?? systemTimers),
    random: options.random ?? Math.random,
    schema,
    abCache,
    telemetry,
  };
}
