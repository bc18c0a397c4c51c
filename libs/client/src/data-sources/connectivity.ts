/**
 * A quick connectivity check, without building a client.
 *
 * @packageDocumentation
 */
import type { Dispatcher } from 'undici';
import type { Credentials } from '../http/credentials.js';
import { NotAVaneServiceError, VaneError, type VaneErrorCode } from '../errors.js';
import { silentLogger } from '../util/logger.js';
import { DEFAULTS, parseBaseUrl, resolveCredentials } from '../options.js';
import { ServiceHttp } from '../http/service-http.js';
import { systemClock, systemTimers } from '../util/timers.js';
import { transportFor, type Transport } from '../http/transport.js';
import { USER_AGENT } from '../http/version.js';
import type { WorkloadIdentityOptions } from '../workload-identity/workload-identity-options.js';

/** Options of {@link checkConnectivity}: the addressing and transport subset of the client's. */
export interface ConnectivityOptions {
  /** The service's base URL. */
  baseUrl: string;
  /** `svs_…` or `svp_…`. */
  apiKey?: string;
  /** Custom credentials instead of `apiKey`; the check starts and closes them, so do not share them with a client. */
  credentials?: Credentials;
  /** Check the workload identity instead of a static key: the exchange runs first (see the client's option). */
  workloadIdentity?: WorkloadIdentityOptions;
  /** Timeout of the check, in milliseconds. @default 10000 */
  timeoutMs?: number;
  /** An undici dispatcher (proxy…); not closed by the check. */
  dispatcher?: Dispatcher;
  /** Replaces HTTP altogether. */
  transport?: Transport;
}

/** Outcome of {@link checkConnectivity}. */
export interface ConnectivityResult {
  /** True when the key works on this service (200). */
  readonly ok: boolean;
  /** HTTP status, when the service answered. */
  readonly status: number | undefined;
  /** The error code of the failure (`VANE_UNAUTHORIZED`, `VANE_NOT_FOUND`, `VANE_TRANSPORT`…), when not ok. */
  readonly code: VaneErrorCode | undefined;
  /** What it means, for a person, with what to do. Never contains the key in clear. */
  readonly message: string;
}

/**
 * A plain `GET /v1/sync` with the key: 200 means the key works, 401 the key
 * is wrong, 404 the slug is wrong, and `VANE_NOT_A_VANE_SERVICE` that
 * something else answers at `baseUrl` (a wrong port, a proxy). With `workloadIdentity`, the platform
 * identity is exchanged for a session first; a platform with no identity or
 * a refused exchange is reported the same way (`ok: false` with its code). Never throws for those: returns a result
 * with a message a person can act on. Throws `InvalidArgumentError` for
 * malformed options (before any request).
 */
export async function checkConnectivity(options: ConnectivityOptions): Promise<ConnectivityResult> {
  const baseUrl = parseBaseUrl(options.baseUrl);
  const credentials = resolveCredentials(options);
  const transport = transportFor(options, baseUrl);
  const http = new ServiceHttp({
    baseUrl,
    transport,
    credentials,
    timers: systemTimers,
    clock: systemClock,
    timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
    userAgent: USER_AGENT,
  });
  const who = credentials.describe();
  const closed = new AbortController();
  try {
    await credentials.start?.({
      baseUrl,
      transport,
      timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
      timers: systemTimers,
      clock: systemClock,
      logger: silentLogger,
      signal: closed.signal,
    });
    const answer = await http.fetch({ method: 'GET', path: 'v1/sync', operation: 'connectivity' });
    if (answer.status === 200 || answer.status === 304) {
      return { ok: true, status: answer.status, code: undefined, message: `key ${who} works on ${baseUrl.host}` };
    }
    const error = http.errorFor(answer.status, answer.text, answer.header, 'connectivity');
    let message = error.message;
    if (answer.status === 401)
      message = `key ${who} is wrong for ${baseUrl.host} (401): it is unknown, revoked, or belongs to another service; copy the key shown for this service in the console`;
    if (answer.status === 404)
      message = `the Vane service at ${baseUrl.host} has no service by that slug (404): the slug in baseUrl is wrong; copy the base URL shown for this service in the console`;
    return { ok: false, status: answer.status, code: error.code, message };
  } catch (err) {
    // Only the client's own errors can arise here.
    if (err instanceof VaneError) {
      const status = err instanceof NotAVaneServiceError ? err.status : undefined;
      return { ok: false, status, code: err.code as VaneErrorCode, message: err.message };
    }
    throw err;
  } finally {
    closed.abort();
    await Promise.resolve(credentials.close?.()).catch(() => undefined);
    await transport.close().catch(() => undefined);
  }
}
