/**
 * Plain HTTP for the end-to-end tests (node:http, no keep-alive, so no
 * socket outlives a test). The admin API is `adminRequest` of
 * `@vane/server/testing`.
 */
import { request } from 'node:http';

/** A response: status, headers, raw body, and the body parsed as JSON when it is JSON. */
export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
  /** Parsed JSON (`any`, for terse assertions), or `undefined`. */
  readonly body: any;
}

/** Sends one request; `body` (a string) is sent as it is. */
export function send(
  method: string,
  url: string,
  options: { headers?: Record<string, string>; body?: string; timeoutMs?: number } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, headers: options.headers, agent: false, timeout: options.timeoutMs ?? 5000 },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${url}: no answer`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** `GET url`. */
export function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return send('GET', url, { headers });
}

/** An open server-sent events response. */
export interface EventStream {
  /** The next event's `data`, parsed as JSON (events already received are queued). */
  next(timeoutMs?: number): Promise<unknown>;
  /** Hangs up. */
  close(): void;
}

/** Opens `url` as a server-sent events stream; resolves once the response headers are in. */
export function openEventStream(url: string): Promise<EventStream> {
  return new Promise((resolve, reject) => {
    const queue: unknown[] = [];
    const waiting: Array<(data: unknown) => void> = [];
    const req = request(url, { agent: false, headers: { accept: 'text/event-stream' } }, (res) => {
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = /^data: (.*)$/m.exec(event);
          if (!data) continue;
          const parsed: unknown = JSON.parse(data[1]!);
          const waiter = waiting.shift();
          if (waiter) waiter(parsed);
          else queue.push(parsed);
        }
      });
      resolve({
        next: (timeoutMs = 5000) =>
          queue.length > 0
            ? Promise.resolve(queue.shift())
            : new Promise((resolveNext, rejectNext) => {
                const timer = setTimeout(
                  () => rejectNext(new Error(`${url}: no event within ${timeoutMs} ms`)),
                  timeoutMs,
                );
                waiting.push((data) => {
                  clearTimeout(timer);
                  resolveNext(data);
                });
              }),
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}
