/**
 * The token exchange call (PROTOCOL §8).
 *
 * @packageDocumentation
 */
import type { CredentialsContext } from '../http/credentials.js';
import { TokenExchangeFailedError, TransportError } from '../errors.js';
import { redactText, sanitizeCause } from '../util/redact.js';
import { notAVaneService, PROTOCOL_HEADER, serviceUrl } from '../http/service-http.js';
import type { WorkloadIdentityProvider } from './workload-identity-options.js';

/** A session as the exchange answers it. */
export interface Session {
  /** The session JWT (never logged). */
  readonly token: string;
  /** `expires_at`, in epoch milliseconds. */
  readonly expiresAtMs: number;
}

/**
 * Exchanges a platform identity for a session, within the client's timeout.
 *
 * @throws TokenExchangeFailedError - on any non-2xx (with `status`), a malformed answer, an answer that is not the
 *   service's (no `Vane-Protocol` header; `cause` is a `NotAVaneServiceError`), or a network failure (`cause` is a `TransportError`).
 */
export async function exchangeToken(
  ctx: CredentialsContext,
  provider: WorkloadIdentityProvider,
  platformToken: string,
): Promise<Session> {
  const controller = new AbortController();
  let timedOut = false;
  const onClose = (): void => controller.abort();
  ctx.signal.addEventListener('abort', onClose, { once: true });
  const timer = ctx.timers.setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, ctx.timeoutMs);
  const host = ctx.baseUrl.host;
  let status: number;
  let text: string;
  try {
    const res = await ctx.transport.request({
      method: 'POST',
      url: serviceUrl(ctx.baseUrl, 'v1/auth/token-exchange'),
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify({ provider, token: platformToken }),
      signal: controller.signal,
    });
    status = res.status;
    if (res.header(PROTOCOL_HEADER) === undefined) {
      controller.abort(); // not the service's answer: left unread
      const cause = notAVaneService('token exchange', ctx.baseUrl, status);
      throw new TokenExchangeFailedError(`token exchange (${provider}) failed: ${cause.message}`, { status, cause });
    }
    text = await res.text();
  } catch (error) {
    if (error instanceof TokenExchangeFailedError) throw error;
    const cause = timedOut
      ? new TransportError(`token exchange: no complete answer from ${host} within ${ctx.timeoutMs} ms`, {
          timedOut: true,
        })
      : new TransportError(`token exchange: cannot reach ${host} (${redactText(networkCode(error))})`, {
          cause: sanitizeCause(error),
        });
    throw new TokenExchangeFailedError(`token exchange (${provider}) failed: ${cause.message}`, undefined, { cause });
  } finally {
    ctx.timers.clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onClose);
  }
  if (status < 200 || status > 299) {
    let said = '';
    try {
      const message = (JSON.parse(text) as { message?: unknown }).message;
      if (typeof message === 'string') said = ` (server said: ${redactText(message).slice(0, 300)})`;
    } catch {
      // Not an error body: the status alone tells.
    }
    throw new TokenExchangeFailedError(
      `token exchange (${provider}) failed: ${host} answered ${status}${said}`,
      status,
    );
  }
  let doc: { token?: unknown; expires_at?: unknown };
  try {
    doc = JSON.parse(text) as typeof doc;
  } catch {
    throw new TokenExchangeFailedError(
      `token exchange (${provider}) failed: the answer of ${host} is not JSON`,
      status,
    );
  }
  const expiresAtMs = typeof doc.expires_at === 'string' ? Date.parse(doc.expires_at) : Number.NaN;
  if (typeof doc.token !== 'string' || doc.token === '' || Number.isNaN(expiresAtMs)) {
    throw new TokenExchangeFailedError(
      `token exchange (${provider}) failed: the answer of ${host} lacks "token" or a valid "expires_at"`,
      status,
    );
  }
  return { token: doc.token, expiresAtMs };
}

/** The `code` of a network error (read directly: it may come from another realm), else its redacted message. */
function networkCode(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') return code;
  return sanitizeCause(error).message;
}
