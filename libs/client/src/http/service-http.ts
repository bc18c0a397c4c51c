/**
 * Requests to the service: credentials, timeouts, one retry on a renewable
 * 401, and the mapping of error answers to typed errors (PROTOCOL §3).
 * Internal: not exported from the package.
 *
 * @packageDocumentation
 */
import {
  errorCodeFor,
  parseRetryAfterMs,
  PROTOCOL_HEADER,
  readErrorBody,
  secretWriteErrorCodeFor,
} from '@vane/client-core';
import type { Credentials } from './credentials.js';
import {
  AddonNotAvailableError,
  BillingOverdueError,
  NotAVaneServiceError,
  VaneNotFoundError,
  QuarantinedError,
  RateLimitedError,
  TransportError,
  UnauthorizedError,
  UnexpectedResponseError,
  CommitOutcomeUnknownError,
  VaneError,
  type VaneErrorCode,
} from '../errors.js';
import { redactText, sanitizeCause } from '../util/redact.js';
import type { Clock, Timers } from '../util/timers.js';
import type { Transport, TransportRequest, TransportResponse } from './transport.js';

/** What a request is for; shapes the error messages so a person knows what to fix. */
export type Operation = 'sync' | 'stream' | 'evaluate-ab' | 'secret-write' | 'connectivity';

/** Settings of {@link ServiceHttp}. */
export interface ServiceHttpSettings {
  /** The service's base URL. */
  readonly baseUrl: URL;
  /** Where requests go. */
  readonly transport: Transport;
  /** Where the authentication headers come from. */
  readonly credentials: Credentials;
  /** Timers of the request timeouts. */
  readonly timers: Timers;
  /** Clock for `Retry-After` dates. */
  readonly clock: Clock;
  /** Timeout of each request, in milliseconds. */
  readonly timeoutMs: number;
  /** `User-Agent` header. */
  readonly userAgent: string;
}

/** A request to send, relative to the base URL. */
export interface ServiceRequest {
  /** HTTP method. */
  readonly method: TransportRequest['method'];
  /** Path under the base URL, e.g. `v1/sync` (no leading slash). */
  readonly path: string;
  /** Extra headers (lower-case names); credentials are added last and win. */
  readonly headers?: Readonly<Record<string, string>>;
  /** A JSON body, serialised by the request. */
  readonly body?: unknown;
  /** What the request is for, for messages. */
  readonly operation: Operation;
  /**
   * Whether the request may be sent twice: a connection that fails before
   * any answer (a kept-alive one the server closed as it was reused) is
   * tried once more. Default: true for `GET`; evaluate-ab (a pure
   * evaluation, PROTOCOL §7) says true; a secret write never is.
   */
  readonly repeatable?: boolean;
}

/** A fully read answer. */
export interface ServiceAnswer {
  /** HTTP status. */
  readonly status: number;
  /** A response header by lower-case name. */
  readonly header: (name: string) => string | undefined;
  /** The whole body. */
  readonly text: string;
}

const MAX_SERVER_MESSAGE = 300;

/**
 * Removes a value the client sent (a secret being written) from a server's
 * message, as is and JSON-escaped; a message quoting a value too short to
 * redact safely is dropped whole.
 */
function concealValue(message: string, value: string | undefined): string {
  if (value === undefined || value === '') return message;
  let out = message;
  for (const form of new Set([value, JSON.stringify(value).slice(1, -1)])) {
    if (!out.includes(form)) continue;
    if (form.length < 4) return '';
    out = out.split(form).join('[redacted]');
  }
  return out;
}

export { PROTOCOL_HEADER };

/**
 * The error for an answer that lacks {@link PROTOCOL_HEADER}: whatever
 * answered at `baseUrl` is not a Vane service, whatever its status says.
 */
export function notAVaneService(what: string, baseUrl: URL, status: number): NotAVaneServiceError {
  return new NotAVaneServiceError(
    `${what}: no Vane service answers at ${baseUrl.host}: it answered ${status} without the Vane-Protocol header every Vane answer carries; check the host and port in baseUrl (copy the base URL shown for the service in the console), or a proxy in between (HTTP_PROXY/HTTPS_PROXY)`,
    status,
  );
}

/**
 * Error codes of a connection that ended under a request (undici's "other
 * side closed", a reset, a write to a closed socket): what a server closing
 * a kept-alive connection as it is reused looks like.
 */
const CONNECTION_LOST_CODES: ReadonlySet<string> = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/** True for a {@link TransportError} caused by the connection ending (not a timeout, an abort or a refusal). */
function isConnectionLost(err: unknown): boolean {
  if (!(err instanceof TransportError) || err.timedOut) return false;
  const code = (err.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && CONNECTION_LOST_CODES.has(code);
}

/** Joins a path to a base URL, keeping any path prefix of the base. */
export function serviceUrl(base: URL, path: string): string {
  const prefix = base.pathname.endsWith('/') ? base.pathname : `${base.pathname}/`;
  return `${base.origin}${prefix}${path}`;
}

/** The HTTP plumbing shared by every operation of the client. */
export class ServiceHttp {
  readonly #s: ServiceHttpSettings;

  /** @param settings - transport, credentials, timeouts. */
  constructor(settings: ServiceHttpSettings) {
    this.#s = settings;
  }

  /** The host the service is addressed by (for messages). */
  get host(): string {
    return this.#s.baseUrl.host;
  }

  /**
   * Sends a request and reads its whole body within `timeoutMs`. Retries once
   * when the credentials say a 401 was renewable, and once when the
   * connection ended before any answer and the request is repeatable (see
   * {@link ServiceRequest.repeatable}).
   *
   * @throws TransportError - on network failure or timeout.
   * @throws VaneError - from the credentials (e.g. session expired).
   */
  async fetch(req: ServiceRequest, external?: AbortSignal): Promise<ServiceAnswer> {
    let answer = await this.#fetchAnswered(req, external);
    if (answer.status === 401 && this.#s.credentials.onUnauthorized && (await this.#s.credentials.onUnauthorized())) {
      answer = await this.#fetchAnswered(req, external);
    }
    return answer;
  }

  /**
   * {@link ServiceHttp.fetch} without the 401 retry. HTTP/1.1 lets a server
   * close an idle kept-alive connection at any time, so one may end just as
   * a request is written on it (RFC 9112 §9.3.1): nothing was answered, and
   * undici sends nothing again by itself. A repeatable request is then sent
   * once more (the dead connection is gone: the pool takes another, or opens
   * one); a request that got any answer, timed out or was aborted is not.
   */
  async #fetchAnswered(req: ServiceRequest, external: AbortSignal | undefined): Promise<ServiceAnswer> {
    const attempt = { answered: false };
    try {
      return await this.#fetchOnce(req, external, attempt);
    } catch (err) {
      const repeatable = req.repeatable ?? req.method === 'GET';
      if (!repeatable || attempt.answered || external?.aborted === true || !isConnectionLost(err)) throw err;
      return this.#fetchOnce(req, external, { answered: false });
    }
  }

  /**
   * Opens a request and returns as soon as the headers are in, leaving the
   * body to the caller (the stream). `timeoutMs` covers the headers only.
   * The returned response's body is aborted through `signal`.
   */
  async open(req: ServiceRequest, signal: AbortSignal): Promise<TransportResponse> {
    const res = await this.#openOnce(req, signal);
    if (res.status === 401 && this.#s.credentials.onUnauthorized && (await this.#s.credentials.onUnauthorized())) {
      await res.discard().catch(() => undefined);
      return this.#openOnce(req, signal);
    }
    return res;
  }

  async #openOnce(req: ServiceRequest, signal: AbortSignal): Promise<TransportResponse> {
    // The body outlives this call: `signal` stays linked to the request after the headers are in.
    return this.#withTimeout(
      req,
      signal,
      async (transportRequest, abort) => this.#fromVane(req, await this.#s.transport.request(transportRequest), abort),
      true,
    );
  }

  /**
   * Passes on an answer of a Vane service; refuses any other, aborting its
   * body unread (a foreign answer may be endless, or a stream that never speaks).
   */
  #fromVane(req: ServiceRequest, res: TransportResponse, abort: () => void): TransportResponse {
    if (res.header(PROTOCOL_HEADER) !== undefined) return res;
    abort();
    throw notAVaneService(req.operation, this.#s.baseUrl, res.status);
  }

  /** @param attempt - `answered` turns true once the status and headers are in. */
  async #fetchOnce(
    req: ServiceRequest,
    external: AbortSignal | undefined,
    attempt: { answered: boolean },
  ): Promise<ServiceAnswer> {
    return this.#withTimeout(req, external, async (transportRequest, abort) => {
      const response = await this.#s.transport.request(transportRequest);
      attempt.answered = true;
      const res = this.#fromVane(req, response, abort);
      const text = await readBounded(
        res,
        res.status >= 200 && res.status < 300 ? MAX_ANSWER_BYTES : MAX_ERROR_BODY_BYTES,
      );
      return { status: res.status, header: (name: string) => res.header(name), text };
    });
  }

  async #withTimeout<T>(
    req: ServiceRequest,
    external: AbortSignal | undefined,
    run: (r: TransportRequest, abort: () => void) => Promise<T>,
    keepLinked = false,
  ): Promise<T> {
    const controller = new AbortController();
    let timedOut = false;
    const onExternalAbort = (): void => controller.abort();
    if (external) {
      if (external.aborted) controller.abort();
      else external.addEventListener('abort', onExternalAbort, { once: true });
    }
    const timer = this.#s.timers.setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.#s.timeoutMs);
    try {
      const headers: Record<string, string> = {
        accept: 'application/json',
        'user-agent': this.#s.userAgent,
        ...(req.headers ?? {}),
        ...(await this.#s.credentials.headers()),
      };
      let body: string | undefined;
      if (req.body !== undefined) {
        body = JSON.stringify(req.body);
        headers['content-type'] = 'application/json';
      }
      const url = serviceUrl(this.#s.baseUrl, req.path);
      return await run({ method: req.method, url, headers, body, signal: controller.signal }, () => controller.abort());
    } catch (err) {
      if (err instanceof VaneError) throw err;
      if (timedOut) {
        throw new TransportError(
          `${req.operation}: no complete answer from ${this.host} within ${this.#s.timeoutMs} ms`,
          { timedOut: true },
        );
      }
      if (external?.aborted)
        throw new TransportError(`${req.operation}: request to ${this.host} aborted`, { cause: sanitizeCause(err) });
      const cause = sanitizeCause(err);
      const detail = (cause as Error & { code?: string }).code ?? cause.message;
      throw new TransportError(`${req.operation}: cannot reach ${this.host} (${redactText(String(detail))})`, {
        cause,
      });
    } finally {
      this.#s.timers.clearTimeout(timer);
      if (!keepLinked) external?.removeEventListener('abort', onExternalAbort);
    }
  }

  /**
   * Maps an error answer (any status but 2xx and 304) to a typed error with
   * a message that says what to fix. Never includes the body beyond the
   * server's own `message` (redacted, bounded).
   */
  errorFor(
    status: number,
    text: string,
    header: (name: string) => string | undefined,
    operation: Operation,
    subject?: string,
    conceal?: string,
  ): VaneError<VaneErrorCode> {
    const body = readErrorBody(text);
    const serverCode = body.serverCode;
    const serverMessage = body.serverMessage
      ? redactText(concealValue(body.serverMessage, conceal)).slice(0, MAX_SERVER_MESSAGE)
      : '';
    const until = body.untilMs === undefined ? undefined : new Date(body.untilMs);
    const said = serverMessage ? ` (server said: ${serverMessage})` : '';
    const who = this.#s.credentials.describe();
    const opts = { serverCode };
    switch (
      operation === 'secret-write'
        ? secretWriteErrorCodeFor(status, serverCode)
        : errorCodeFor(status, serverCode, operation)
    ) {
      case 'VANE_UNAUTHORIZED':
        return new UnauthorizedError(
          `${operation}: unauthorized (401) for key ${who} on ${this.host}: the key is invalid, revoked, belongs to another service, or cannot do this; check apiKey and the slug in baseUrl${said}`,
          opts,
        );
      case 'VANE_BILLING_OVERDUE':
        return new BillingOverdueError(
          `${operation}: billing overdue (402): the tenant has invoices overdue by more than 14 days; settle them in the console${said}`,
          opts,
        );
      case 'VANE_ADDON_NOT_AVAILABLE':
        return new AddonNotAvailableError(
          `evaluate-ab: the A/B testing add-on is not active for this tenant (403); enable it in the console${said}`,
          opts,
        );
      case 'VANE_NOT_FOUND':
        // Only a Vane service gets here (see #fromVane): a 404 is its own "unknown slug" (or unknown secret).
        if (operation === 'secret-write' && serverCode === 'not_found' && subject) {
          return new VaneNotFoundError(`${operation}: ${subject} not found (404) on ${this.host}${said}`, opts);
        }
        return new VaneNotFoundError(
          `${operation}: not found (404): the Vane service at ${this.host} has no service by the slug in baseUrl; check the slug (https://<slug>.…, or http://<slug>.localhost:<port> for the local server)${said}`,
          opts,
        );
      case 'VANE_QUARANTINED':
        return new QuarantinedError(
          `${operation}: the caller is quarantined${until ? ` until ${until.toISOString()}` : ''} (429)${said}`,
          { ...opts, until, retryAfterMs: parseRetryAfterMs(header('retry-after'), this.#s.clock.now()) },
        );
      case 'VANE_RATE_LIMITED': {
        const retryAfterMs = parseRetryAfterMs(header('retry-after'), this.#s.clock.now());
        return new RateLimitedError(
          `${operation}: rate limited (429)${retryAfterMs !== undefined ? `, retry after ${retryAfterMs} ms` : ''}${said}`,
          { ...opts, retryAfterMs },
        );
      }
      case 'VANE_COMMIT_OUTCOME_UNKNOWN':
        return new CommitOutcomeUnknownError(
          `${operation}: ${subject ?? 'the change'} may or may not have been applied: the service sent it to its store and no answer came back (504); read it back (sync) before you retry${said}`,
          opts,
        );
      default:
        return new UnexpectedResponseError(
          status === 403
            ? `${operation}: forbidden (403)${said}`
            : `${operation}: unexpected answer ${status} from ${this.host}${said}`,
          status,
          opts,
        );
    }
  }
}

/** The largest successful answer read (256 MiB; a 10,000-key snapshot is about 330 KiB). */
export const MAX_ANSWER_BYTES = 256 * 1024 * 1024;
/** How much of an error answer is read: enough for `{"error", "message"}`; the rest is dropped. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

/**
 * Reads a body as UTF-8, never holding more than `limit` bytes: a server (or
 * a proxy in between) sending an endless body cannot exhaust memory. Past the
 * limit, an error answer is cut (only its start is needed) and a successful
 * one is refused.
 */
async function readBounded(res: TransportResponse, limit: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    if (size + chunk.byteLength > limit) {
      chunks.push(chunk.subarray(0, limit - size));
      size = limit;
      // Leaving the loop destroys the body, and with it the connection.
      if (res.status >= 200 && res.status < 300) {
        throw new UnexpectedResponseError(`the answer is larger than ${limit} bytes`, res.status);
      }
      break;
    }
    chunks.push(chunk);
    size += chunk.byteLength;
  }
  return Buffer.concat(chunks, size).toString('utf8');
}
