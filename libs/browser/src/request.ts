/**
 * One request to the service: the key in its header (never in a URL), a
 * bound on its time, and the answer read by the shared error rules of
 * `@vane/client-core` into a {@link VaneServiceError}.
 *
 * @packageDocumentation
 */
import { errorCodeFor, parseRetryAfterMs, PROTOCOL_HEADER, readErrorBody, serviceWaitMs } from '@vane/client-core';
import { VaneServiceError } from './errors.js';
import type { VaneBrowserSettings } from './options.js';

/**
 * One request to `/v1/{path}` (a POST of `body` when there is one), bounded
 * by `timeoutMs` (the stream by `signal` alone). Errors name the operation:
 * the path's last segment (`sync`, `stream`, `evaluate-ab`).
 *
 * @throws VaneServiceError - for no answer, an answer without `Vane-Protocol`, or an error answer.
 */
export type VaneRequest = (
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
  signal?: AbortSignal,
) => Promise<Response>;

/** The requests of one client: its base URL, key, `fetch`, clock and bounds, held by the closure. */
export function requester(
  base: URL,
  key: string,
  fetchFn: typeof fetch,
  now: () => number,
  settings: VaneBrowserSettings,
): VaneRequest {
  return async (path, body, headers, signal) => {
    const operation = path.split('/').pop()!;
    const post = body !== undefined;
    const controller = new AbortController();
    const timer = signal ? undefined : setTimeout(() => controller.abort(), settings.timeoutMs);
    let res: Response;
    try {
      // Called as a plain function: a browser's fetch throws "Illegal invocation" when called as a method of another object.
      res = await fetchFn(new URL('v1/' + path, base), {
        headers: { 'x-service-api-key': key, ...(post && { 'content-type': 'application/json' }), ...headers },
        signal: signal ?? controller.signal,
        // A GET (fetch's default) without a body, or a POST of JSON.
        ...(post && { method: 'POST', body: JSON.stringify(body) }),
      });
    } catch (cause) {
      throw new VaneServiceError('VANE_TRANSPORT', `${operation}: unreachable`, { cause });
    } finally {
      clearTimeout(timer);
    }
    const status = res.status;
    if (res.headers.get(PROTOCOL_HEADER) === null)
      throw new VaneServiceError('VANE_NOT_A_VANE_SERVICE', `${operation}: not a Vane service (${status})`, { status });
    if (res.ok || status === 304) return res;
    const { serverCode, untilMs } = readErrorBody(await res.text().catch(() => ''));
    const code = errorCodeFor(status, serverCode, operation);
    const at = now();
    const retryAfterMs =
      code === 'VANE_RATE_LIMITED' || code === 'VANE_QUARANTINED'
        ? serviceWaitMs(
            parseRetryAfterMs(res.headers.get('retry-after') ?? undefined, at),
            untilMs,
            at,
            settings.maxRetryAfterMs,
          )
        : undefined;
    throw new VaneServiceError(code, `${operation}: HTTP ${status}`, { status, serverCode, retryAfterMs });
  };
}
