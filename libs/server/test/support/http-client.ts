import { request, type IncomingHttpHeaders } from 'node:http';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { VaneServer } from '../../src/index.js';
import { DEFAULT_WAIT_MS } from '../../src/testing/index.js';
import { checkAgainstOpenApi, checkStreamEvent } from './openapi-conformance.js';

/** A request's bound: a write queued behind hundreds of journal writes on a loaded 2-core machine needs more than a wait's. */
const REQUEST_TIMEOUT_MS = 4 * DEFAULT_WAIT_MS;

/** An HTTP answer, read whole. */
export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json<T = Record<string, unknown>>(): T;
}

/** What to send. `host: null` sends no Host header at all (HTTP/1.0). */
export interface Call {
  method?: string;
  path: string;
  /** Service slug: sets `Host: <slug>.localhost:<port>`. */
  slug?: string;
  host?: string | null;
  key?: string;
  admin?: boolean | string;
  headers?: Record<string, string>;
  /** A string or Buffer is sent as is; anything else as JSON. */
  body?: unknown;
}

/**
 * Sends one request to the server through a real socket on 127.0.0.1.
 * Rejects when the answer breaks the server's OpenAPI document (see `openapi-conformance.ts`).
 */
export function call(server: VaneServer, spec: Call): Promise<Answer> {
  const headers: Record<string, string> = { ...spec.headers };
  if (spec.host !== null)
    headers['host'] = spec.host ?? (spec.slug ? `${spec.slug}.localhost:${server.port}` : `127.0.0.1:${server.port}`);
  if (spec.key !== undefined) headers['x-service-api-key'] = spec.key;
  if (spec.admin) headers['authorization'] = `Bearer ${spec.admin === true ? server.adminToken : spec.admin}`;
  let payload: Buffer | undefined;
  if (spec.body !== undefined) {
    payload = Buffer.isBuffer(spec.body)
      ? spec.body
      : Buffer.from(typeof spec.body === 'string' ? spec.body : JSON.stringify(spec.body));
    headers['content-type'] ??= 'application/json';
    headers['content-length'] = String(payload.length);
  }
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        method: spec.method ?? 'GET',
        path: spec.path,
        headers,
        setHost: false,
        timeout: REQUEST_TIMEOUT_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          try {
            checkAgainstOpenApi({
              method: spec.method ?? 'GET',
              path: spec.path,
              status,
              contentType: res.headers['content-type'],
              text,
            });
          } catch (error) {
            reject(error as Error);
            return;
          }
          resolve({ status, headers: res.headers, text, json: <T>() => JSON.parse(text) as T });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () =>
      req.destroy(new Error(`no answer to ${spec.method ?? 'GET'} ${spec.path} within ${REQUEST_TIMEOUT_MS} ms`)),
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Shorthand for the admin API. */
export function admin(server: VaneServer, method: string, path: string, body?: unknown): Promise<Answer> {
  return call(server, { method, path: `/admin/v1${path}`, admin: true, body });
}

/** One SSE event as the test saw it. */
export type SseEvent = EventSourceMessage;

/** An open `/v1/stream` connection that queues what it receives. */
export class StreamReader {
  readonly events: SseEvent[] = [];
  pings = 0;
  ended = false;
  /** The first event that broke the OpenAPI document: every later wait throws it. */
  private mismatch: Error | undefined;
  private waiters: Array<() => void> = [];
  private readonly endPromise: Promise<void>;

  constructor(
    readonly status: number,
    readonly headers: IncomingHttpHeaders,
    private readonly destroy: () => void,
    subscribe: (onChunk: (text: string) => void, onEnd: () => void) => void,
  ) {
    const parser = createParser({
      onEvent: (event) => {
        try {
          checkStreamEvent(event.event, event.data);
        } catch (error) {
          this.mismatch ??= error as Error;
        }
        this.events.push(event);
        this.wake();
      },
      onComment: (comment) => {
        if (comment.trim() === 'ping') this.pings++;
        this.wake();
      },
    });
    let resolveEnd!: () => void;
    this.endPromise = new Promise((resolve) => (resolveEnd = resolve));
    subscribe(
      (text) => parser.feed(text),
      () => {
        this.ended = true;
        resolveEnd();
        this.wake();
      },
    );
  }

  /** Waits (bounded) until `predicate` holds over what was received; throws for an event that breaks the OpenAPI document. */
  async until(predicate: (reader: StreamReader) => boolean, what: string): Promise<void> {
    const deadline = Date.now() + DEFAULT_WAIT_MS;
    while (!predicate(this)) {
      if (this.mismatch) throw this.mismatch;
      if (this.ended) throw new Error(`stream ended before ${what}; received ${JSON.stringify(this.events)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; received ${JSON.stringify(this.events)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    if (this.mismatch) throw this.mismatch;
  }

  /** Waits for the `n`-th event (1-based) and returns it. */
  async event(n: number): Promise<SseEvent> {
    await this.until((r) => r.events.length >= n, `event #${n}`);
    return this.events[n - 1]!;
  }

  /** Waits for an event for which `predicate` holds. */
  async find(predicate: (event: SseEvent) => boolean, what: string): Promise<SseEvent> {
    await this.until((r) => r.events.some(predicate), what);
    return this.events.find(predicate)!;
  }

  /** Waits (bounded) for the server to end the stream. */
  async waitForEnd(): Promise<void> {
    await this.until((r) => r.ended, 'the end of the stream');
    await this.endPromise;
  }

  /** Closes the connection from the client side. */
  close(): void {
    this.destroy();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

/** Opens `/v1/stream` and resolves once the status line is in; rejects when its status or type breaks the OpenAPI document. */
export function openStream(
  server: VaneServer,
  spec: { slug: string; key?: string; bearer?: string; lastEventId?: number | string },
): Promise<StreamReader> {
  const headers: Record<string, string> = {
    host: `${spec.slug}.localhost:${server.port}`,
    accept: 'text/event-stream',
  };
  if (spec.key !== undefined) headers['x-service-api-key'] = spec.key;
  if (spec.bearer !== undefined) headers['authorization'] = `Bearer ${spec.bearer}`;
  if (spec.lastEventId !== undefined) headers['last-event-id'] = String(spec.lastEventId);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: server.port, path: '/v1/stream', headers, setHost: false },
      (res) => {
        clearTimeout(timer);
        res.setEncoding('utf8');
        try {
          const answer = { method: 'GET', path: '/v1/stream', status: res.statusCode ?? 0 };
          checkAgainstOpenApi({ ...answer, contentType: res.headers['content-type'], text: undefined });
        } catch (error) {
          req.destroy();
          reject(error as Error);
          return;
        }
        resolve(
          new StreamReader(
            res.statusCode ?? 0,
            res.headers,
            () => req.destroy(),
            (onChunk, onEnd) => {
              res.on('data', onChunk);
              res.on('close', onEnd);
              res.on('error', () => undefined);
            },
          ),
        );
      },
    );
    const timer = setTimeout(() => req.destroy(new Error('stream did not open in time')), DEFAULT_WAIT_MS);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end();
  });
}

/** A console login: the session cookie (`name=value`) and its CSRF token. */
export interface ConsoleLogin {
  readonly cookie: string;
  readonly csrf: string;
}

/** Logs in to the console with `token` as a browser does (a same-origin form post); throws unless it is let in. */
export async function consoleLogin(server: VaneServer, token: string): Promise<ConsoleLogin> {
  const answer = await call(server, {
    method: 'POST',
    path: '/console/login',
    body: new URLSearchParams({ token }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
  });
  if (answer.status !== 303 || answer.headers['set-cookie'] === undefined) {
    throw new Error(`the console login answered ${answer.status}, not 303 with a cookie`);
  }
  const cookie = String(answer.headers['set-cookie']).split(';')[0]!;
  const session = await call(server, { path: '/console/api/session', headers: { cookie } });
  return { cookie, csrf: session.json<{ csrf_token: string }>().csrf_token };
}

/** A call from the console's own page with a session: its cookie, its CSRF token, same origin. */
export function asConsole(server: VaneServer, login: ConsoleLogin, spec: Call): Promise<Answer> {
  return call(server, {
    ...spec,
    headers: { cookie: login.cookie, 'sec-fetch-site': 'same-origin', 'x-csrf-token': login.csrf, ...spec.headers },
  });
}
