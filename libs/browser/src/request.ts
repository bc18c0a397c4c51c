/**
 * One request to the service: the key in its header (never in a URL), a
 * bound on its time, and the answer read by the shared error rules of
 * `@vane/client-core` into a {@link VaneServiceError}.
 *
 * @packageDocumentation
 */
import { errorCodeFor, parseRetryAfterMs, PROTOCOL_HEADER, readErrorBody, serviceWaitMs } from '@vane/client-core';
import { VaneServiceError } from './errors.js';

/** What a request needs of its client. */
export interface RequestContext {
  readonly base: URL;
  readonly key: string;
  readonly fetch: typeof fetch;
  readonly now: () => number;
  readonly timeoutMs: number;
  readonly maxRetryAfterMs: number;
}

/**
 * One request to `/v1/{path}` (a POST of `body` when there is one), bounded
 * by `timeoutMs` (the stream by `signal` alone). Errors name the operation:
 * the path's last segment (`sync`, `stream`, `evaluate-ab`).
 *
 * @throws VaneServiceError - for no answer, an answer without `Vane-Protocol`, or an error answer.
 */
export async function request(
  ctx: RequestContext,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
  signal?: AbortSignal,
): Promise<Response> {
  const operation = path.slice(path.lastIndexOf('/') + 1);
  const controller = signal ? undefined : new AbortController();
  const timer = controller && setTimeout(() => controller.abort(), ctx.timeoutMs);
  let res: Response;
  try {
    res = await ctx.fetch(new URL('v1/' + path, ctx.base), {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        'x-service-api-key': ctx.key,
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? null : JSON.stringify(body),
      signal: signal ?? controller!.signal,
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
  const now = ctx.now();
  const retryAfterMs =
    code === 'VANE_RATE_LIMITED' || code === 'VANE_QUARANTINED'
      ? serviceWaitMs(
          parseRetryAfterMs(res.headers.get('retry-after') ?? undefined, now),
          untilMs,
          now,
          ctx.maxRetryAfterMs,
        )
      : undefined;
  throw new VaneServiceError(code, `${operation}: HTTP ${status}`, { status, serverCode, retryAfterMs });
}
