/**
 * A bounded load on an HTTP(S) route: a few loops sending GET requests over
 * keep-alive connections, counting answers that are not 200. It stops by
 * itself after `maxRequests` or `maxMs`, whichever comes first, and closes
 * its sockets when stopped.
 */
import { Agent, request } from 'node:http';

/** What a load saw. */
export interface LoadReport {
  /** Requests answered 200. */
  readonly ok: number;
  /** Requests that failed (another status, a network error), with what went wrong, first ten. */
  readonly failed: number;
  readonly failures: readonly string[];
}

/** A running load. */
export interface Load {
  /** Requests answered 200 so far. */
  readonly ok: number;
  /** Failed requests so far. */
  readonly failed: number;
  /** Resolves once `count` more requests than now have been answered 200 (rejects after `timeoutMs` or when the load ends first). */
  more(count: number, timeoutMs?: number): Promise<void>;
  /** Stops the loops, waits for the requests in flight, closes the sockets. */
  stop(): Promise<LoadReport>;
}

/** Options of {@link startLoad}. */
export interface LoadOptions {
  /** Loops sending one request after another. */
  readonly concurrency: number;
  /** Bound on the number of requests. */
  readonly maxRequests: number;
  /** Bound on the duration, in milliseconds. */
  readonly maxMs: number;
}

/** Starts `concurrency` loops of `GET url`. */
export function startLoad(url: string, options: LoadOptions): Load {
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const deadline = Date.now() + options.maxMs;
  let sent = 0;
  let ok = 0;
  let failed = 0;
  let stopped = false;
  const failures: string[] = [];
  const waiters = new Set<() => void>();
  const fail = (what: string): void => {
    failed += 1;
    if (failures.length < 10) failures.push(what);
  };
  const once = (): Promise<void> =>
    new Promise((resolve) => {
      const req = request(url, { agent, timeout: 10_000 }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => {
          if (res.statusCode === 200) ok += 1;
          else fail(`${res.statusCode} ${body.slice(0, 300)}`);
          for (const waiter of waiters) waiter();
          resolve();
        });
      });
      req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
      req.on('error', (err) => {
        fail(`${err.name}: ${err.message}`);
        resolve();
      });
      req.end();
    });
  const loop = async (): Promise<void> => {
    while (!stopped && sent < options.maxRequests && Date.now() < deadline) {
      sent += 1;
      await once();
    }
  };
  const loops = Promise.all(Array.from({ length: options.concurrency }, loop)).then(() => {
    for (const waiter of waiters) waiter();
  });
  let ended = false;
  void loops.then(() => (ended = true));
  return {
    get ok() {
      return ok;
    },
    get failed() {
      return failed;
    },
    more(count, timeoutMs = 30_000) {
      const target = ok + count;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => finish(new Error(`fewer than ${count} more requests within ${timeoutMs} ms`)),
          timeoutMs,
        );
        const check = (): void => {
          if (ok >= target) finish();
          else if (ended || stopped) finish(new Error(`the load ended before ${count} more requests`));
        };
        function finish(err?: Error): void {
          clearTimeout(timer);
          waiters.delete(check);
          if (err) reject(err);
          else resolve();
        }
        waiters.add(check);
        check();
      });
    },
    async stop() {
      stopped = true;
      await loops;
      agent.destroy();
      return { ok, failed, failures };
    },
  };
}
