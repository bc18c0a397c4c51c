import type { Transport, TransportRequest, TransportResponse } from '../../src/http/transport.js';

/** A response a fake handler returns. */
export interface FakeResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string | StreamBody;
  /** An answer of something that is not a Vane service: sent without the `Vane-Protocol` header. */
  foreign?: boolean;
}

export type FakeHandler = (req: TransportRequest) => FakeResponse | Promise<FakeResponse>;

/** A stream body the test writes to, chunk by chunk. */
export class StreamBody implements AsyncIterable<Uint8Array> {
  readonly #queue: (Uint8Array | Error | null)[] = [];
  #wake: (() => void) | undefined;
  signal: AbortSignal | undefined;
  readonly encoder = new TextEncoder();

  push(text: string): void {
    this.#queue.push(this.encoder.encode(text));
    this.#wake?.();
  }

  end(): void {
    this.#queue.push(null);
    this.#wake?.();
  }

  fail(error: Error): void {
    this.#queue.push(error);
    this.#wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    for (;;) {
      if (this.signal?.aborted) throw Object.assign(new Error('aborted'), { name: 'AbortError' });
      const item = this.#queue.shift();
      if (item === undefined) {
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
          this.signal?.addEventListener('abort', () => resolve(), { once: true });
        });
        this.#wake = undefined;
        continue;
      }
      if (item === null) return;
      if (item instanceof Error) throw item;
      yield item;
    }
  }
}

/** An in-memory transport: records requests, answers through a handler. */
export class FakeTransport implements Transport {
  readonly requests: TransportRequest[] = [];
  closed = false;

  constructor(public handler: FakeHandler) {}

  async request(req: TransportRequest): Promise<TransportResponse> {
    this.requests.push(req);
    if (req.signal.aborted) throw Object.assign(new Error('aborted'), { name: 'AbortError' });
    const res = await this.handler(req);
    // Every answer of a Vane service carries `Vane-Protocol` (PROTOCOL §3); `foreign` answers lack it.
    const headers = Object.fromEntries(
      Object.entries({ ...(res.foreign ? {} : { 'vane-protocol': '1' }), ...res.headers }).map(([k, v]) => [
        k.toLowerCase(),
        v,
      ]),
    );
    const body = res.body ?? '';
    if (body instanceof StreamBody) body.signal = req.signal;
    const iterable: AsyncIterable<Uint8Array> =
      typeof body === 'string'
        ? (async function* () {
            yield new TextEncoder().encode(body);
          })()
        : body;
    return {
      status: res.status,
      header: (name) => headers[name],
      body: iterable,
      text: async () => {
        if (typeof body === 'string') return body;
        let out = '';
        for await (const chunk of body) out += new TextDecoder().decode(chunk);
        return out;
      },
      discard: async () => undefined,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /** Requests to a path (e.g. `/v1/sync`). */
  to(path: string): TransportRequest[] {
    return this.requests.filter((r) => new URL(r.url).pathname === path);
  }
}

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): FakeResponse => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

export const errorBody = (
  status: number,
  error: string,
  message = error,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): FakeResponse => json(status, { error, message, ...extra }, headers);

/** A logger that keeps every line, to check nothing secret is ever logged. */
export class MemoryLogger {
  readonly lines: { level: string; message: string }[] = [];
  debug = (message: string): void => void this.lines.push({ level: 'debug', message });
  info = (message: string): void => void this.lines.push({ level: 'info', message });
  warn = (message: string): void => void this.lines.push({ level: 'warn', message });
  error = (message: string): void => void this.lines.push({ level: 'error', message });
  text(level?: string): string {
    return this.lines
      .filter((l) => level === undefined || l.level === level)
      .map((l) => `${l.level}: ${l.message}`)
      .join('\n');
  }
}
