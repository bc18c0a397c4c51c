/**
 * Many requests against a local app, for the pinning load tests: a fixed
 * number of requests over a few keep-alive connections (no time limit
 * involved), with a hook that changes values as they go.
 */
import { Agent, request } from 'node:http';

/** What {@link sendMany} saw: answers by status. */
export interface LoadResult {
  readonly statuses: ReadonlyMap<number, number>;
}

/**
 * Sends `total` GET requests to `url` over `concurrency` keep-alive
 * connections; before request `i` starts, `before(i)` runs (e.g. an admin
 * write every few requests). Each request is bounded by `timeoutMs`; the
 * agent is destroyed at the end, so no socket outlives the call.
 */
export async function sendMany(
  url: string,
  total: number,
  options: { concurrency?: number; timeoutMs?: number; before?: (i: number) => void } = {},
): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency ?? 16 });
  const statuses = new Map<number, number>();
  const get = (): Promise<number> =>
    new Promise((resolve, reject) => {
      const req = request(url, { agent, timeout: options.timeoutMs ?? 10_000 }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`no answer from ${url} in time`)));
      req.on('error', reject);
      req.end();
    });
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < total) {
      const i = next++;
      options.before?.(i);
      const status = await get();
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency ?? 16 }, worker));
  } finally {
    agent.destroy();
  }
  return { statuses };
}
