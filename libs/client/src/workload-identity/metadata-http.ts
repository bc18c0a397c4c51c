/**
 * Bounded HTTP calls to platform metadata endpoints (GCP metadata server,
 * Azure IMDS and App Service, EC2 IMDS). They go through a dispatcher of
 * their own, never through the client's proxy, and are always cut off by a
 * timeout on the client's timers.
 *
 * @packageDocumentation
 */
import { Agent, request } from 'undici';
import { sanitizeCause } from '../util/redact.js';
import type { Timers } from '../util/timers.js';

/** A metadata answer, read whole. */
export interface MetadataAnswer {
  /** HTTP status. */
  readonly status: number;
  /** A response header by lower-case name. */
  header(name: string): string | undefined;
  /** The body as text (at most 64 KiB are kept). */
  readonly text: string;
}

/** A metadata call. */
export interface MetadataRequest {
  readonly method?: 'GET' | 'PUT';
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Cut-off of the whole call, in milliseconds. */
  readonly timeoutMs: number;
}

const MAX_BODY = 64 * 1024;

/** Sends metadata calls through a direct dispatcher it owns. */
export class MetadataHttp {
  readonly #agent: Agent;

  /** @param timers - the client's timers (timeouts run on them). @param connectTimeoutMs - TCP connect cut-off, in milliseconds. */
  constructor(
    private readonly timers: Timers,
    connectTimeoutMs: number,
  ) {
    this.#agent = new Agent({ connect: { timeout: connectTimeoutMs }, keepAliveTimeout: 1_000 });
  }

  /**
   * Sends one call.
   *
   * @throws Error - a sanitised network error (no header values), or a timeout.
   */
  async fetch(req: MetadataRequest): Promise<MetadataAnswer> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = this.timers.setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, req.timeoutMs);
    try {
      const res = await request(req.url, {
        dispatcher: this.#agent,
        method: req.method ?? 'GET',
        headers: req.headers,
        signal: controller.signal,
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      const text = (await res.body.text()).slice(0, MAX_BODY);
      const headers = res.headers;
      return {
        status: res.statusCode,
        header: (name) => {
          const v = headers[name];
          return Array.isArray(v) ? v.join(', ') : v;
        },
        text,
      };
    } catch (error) {
      if (timedOut) throw Object.assign(new Error(`no answer within ${req.timeoutMs} ms`), { code: 'ETIMEDOUT' });
      // Errors from Node's network stack may come from another realm (jest, vm): read `code` before sanitising.
      const code = (error as { code?: unknown } | undefined)?.code;
      const copy = sanitizeCause(error) as Error & { code?: string };
      if (typeof code === 'string') copy.code = code;
      throw copy;
    } finally {
      this.timers.clearTimeout(timer);
    }
  }

  /** Closes the dispatcher's sockets. */
  async close(): Promise<void> {
    await this.#agent.destroy();
  }
}

/** `code` of a network error, else its message: for messages, never a header value. */
export function describeNetworkError(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.message : 'unknown failure';
}
