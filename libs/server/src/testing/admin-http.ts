/**
 * The local server's admin API over HTTP, as the console and a deploy
 * script use it: for tests that change the service the way an operator does.
 * (In process, `server.admin` makes the same changes without HTTP.)
 *
 * @packageDocumentation
 */
import { request } from 'node:http';
import { VaneServerError } from '../errors/vane-server-error.js';
import { DEFAULT_WAIT_MS, type WaitOptions } from './waits.js';

/** Where the admin API is: a `VaneServer`, or its `url` and `adminToken`. */
export interface AdminEndpoint {
  /** `http://<host>:<port>`. */
  readonly url: string;
  /** The admin API's bearer token. */
  readonly adminToken: string;
}

/** A 2xx answer of the admin API. */
export interface AdminAnswer {
  readonly status: number;
  /** The body as sent. */
  readonly text: string;
  /** The body parsed as JSON, `undefined` when it is not JSON. */
  readonly body: unknown;
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
 * keep-alive, so no socket outlives it. Rejects with {@link AdminRequestError}
 * on an answer that is not 2xx, and when no answer came within `timeoutMs`.
 *
 * @param path - below `/admin/v1/`, e.g. `services/shop/flags/beta`.
 */
export function adminRequest(
  server: AdminEndpoint,
  method: 'GET' | 'PUT' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
  options?: WaitOptions,
): Promise<AdminAnswer> {
  const timeoutMs = options?.timeoutMs ?? DEFAULT_WAIT_MS;
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const headers: Record<string, string> = { authorization: `Bearer ${server.adminToken}` };
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(payload.length);
  }
  const what = `admin ${method} ${path}`;
  return new Promise<AdminAnswer>((resolve, reject) => {
    const req = request(
      `${server.url}/admin/v1/${path.replace(/^\//, '')}`,
      { method, agent: false, headers, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          const text = Buffer.concat(chunks).toString('utf8');
          if (status < 200 || status >= 300) {
            reject(new AdminRequestError(`${what}: ${status} ${text}`, status, text));
            return;
          }
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          const revision = (parsed as { revision?: unknown } | undefined)?.revision;
          resolve({ status, text, body: parsed, revision: typeof revision === 'number' ? revision : undefined });
        });
      },
    );
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
  options?: WaitOptions,
): Promise<number | undefined> {
  return (await adminRequest(server, 'PUT', path, body, options)).revision;
}
