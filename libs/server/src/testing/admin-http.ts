/**
 * The local server's admin API over HTTP, as the console and a deploy
 * script use it: for tests that change the service the way an operator does.
 * (In process, `server.admin` makes the same changes without HTTP.)
 *
 * @packageDocumentation
 */
import { request } from 'node:http';
import { VaneServerError } from '../errors/vane-server-error.js';
import { checkAnswer, type AnswerCheck } from './answer-check.js';
import { DEFAULT_WAIT_MS, type WaitOptions } from './waits.js';

/** Where the admin API is: a `VaneServer`, or its `url` and `adminToken`. */
export interface AdminEndpoint {
  /** `http://<host>:<port>`. */
  readonly url: string;
  /** The admin API's bearer token. */
  readonly adminToken: string;
}

/** How one call of the admin API is made. */
export interface AdminRequestOptions extends WaitOptions {
  /**
   * Whether the answer is checked against the server's OpenAPI document (its status, content type and body
   * schema): see {@link AnswerCheck}. Default `'when-installed'`: checked where Ajv 8 and `ajv-formats` (optional
   * peer dependencies, loaded at the first check) can be loaded.
   */
  readonly checkAnswers?: AnswerCheck;
  /** Query parameters, appended percent-encoded (those `undefined` left out). */
  readonly query?: Readonly<Record<string, string | number | undefined>>;
}

/** A 2xx answer of the admin API. */
export interface AdminAnswer<Body = unknown> {
  readonly status: number;
  /** The body as sent. */
  readonly text: string;
  /** The body parsed as JSON, `undefined` when it is not JSON. */
  readonly body: Body;
  /** The service's revision after the change, when the answer carries one. */
  readonly revision: number | undefined;
}

/** The admin API answered with a status that is not 2xx. The message holds the status and the body (never the token). */
export class AdminRequestError extends VaneServerError {
  readonly code = 'VANE_LOCAL_ADMIN_REQUEST_FAILED' as const;

  /**
   * @param status - the HTTP status.
   * @param text - the answer's body.
   */
  constructor(
    message: string,
    readonly status: number,
    readonly text: string,
  ) {
    super(message);
  }
}

/**
 * One call to the admin API (`/admin/v1/<path>`) with a JSON body. No
 * keep-alive, so no socket outlives it. Each answer, 2xx or not, is checked
 * against the server's OpenAPI document as `options.checkAnswers` says
 * (by default where Ajv can be loaded). Rejects with {@link AdminRequestError}
 * on an answer that is not 2xx, and when no answer came within `timeoutMs`;
 * with `OpenApiMismatchError` on an answer the document does not describe.
 * `adminClient` makes the same calls by operation name, typed.
 *
 * @param path - below `/admin/v1/`, e.g. `services/shop/flags/beta`.
 */
export async function adminRequest(
  server: AdminEndpoint,
  method: 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
  options?: AdminRequestOptions,
): Promise<AdminAnswer> {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(options?.query ?? {})) {
    if (value !== undefined) query.set(name, String(value));
  }
  const target = `/admin/v1/${path.replace(/^\//, '')}${query.size > 0 ? `?${query}` : ''}`;
  const answer = await send(server, method, target, body, options?.timeoutMs ?? DEFAULT_WAIT_MS);
  await checkAnswer({ method, path: target, ...answer }, options?.checkAnswers ?? 'when-installed');
  const what = `admin ${method} ${path}`;
  if (answer.status < 200 || answer.status >= 300) {
    throw new AdminRequestError(`${what}: ${answer.status} ${answer.text}`, answer.status, answer.text);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.text);
  } catch {
    parsed = undefined;
  }
  const revision = (parsed as { revision?: unknown } | undefined)?.revision;
  return {
    status: answer.status,
    text: answer.text,
    body: parsed,
    revision: typeof revision === 'number' ? revision : undefined,
  };
}

/** An answer as it came: status, content type and body. */
interface RawAnswer {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly text: string;
}

/** Sends one request to `target` (from the server's root) and reads its whole answer. */
function send(
  server: AdminEndpoint,
  method: string,
  target: string,
  body: unknown,
  timeoutMs: number,
): Promise<RawAnswer> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const headers: Record<string, string> = { authorization: `Bearer ${server.adminToken}` };
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(payload.length);
  }
  const what = `admin ${method} ${target}`;
  return new Promise<RawAnswer>((resolve, reject) => {
    const req = request(`${server.url}${target}`, { method, agent: false, headers, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: res.headers['content-type'],
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.on('timeout', () => req.destroy(new AdminRequestError(`${what}: no answer within ${timeoutMs} ms`, 0, '')));
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * `PUT /admin/v1/<path>` with a JSON body; resolves with the service's new
 * revision (`undefined` for a write that does not move one).
 *
 * @example
 * ```ts
 * const revision = await adminPut(server, 'services/shop/flags/beta', { is_enabled: true });
 * await waitForRevision(client, revision!);
 * ```
 */
export async function adminPut(
  server: AdminEndpoint,
  path: string,
  body: unknown,
  options?: AdminRequestOptions,
): Promise<number | undefined> {
  return (await adminRequest(server, 'PUT', path, body, options)).revision;
}
