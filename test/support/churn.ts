/**
 * What the one-revision-per-request load tests need beside the load itself: a
 * local server whose values keep changing while requests run, in a thread of
 * its own, and the app's heap measured after a full garbage collection.
 */
import { once } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';
import type { VaneClient } from '@vane/client';
import { pinStatsOf } from '@vane/client/adapter';
import type { VaneServerSeed } from '@vane/server';
import { until, waitForRevision, withTimeout } from '@vane/server/testing';
import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { startLoad, type LoadReport } from './load.js';

/** A local server in a worker thread (the built `@vane/server`). */
export interface ChurnServer {
  /** The service's base URL and secret key. */
  readonly baseUrl: string;
  readonly secretKey: string;
  /**
   * Starts changing `db.pool.max`, `db.host` and the file secret
   * `tls.client_pem` (unless started with `fileSecret: false`) every
   * millisecond (Node's shortest timer), together, pausing while they are
   * far ahead of the revision `client` serves.
   */
  churn(client: Parameters<typeof waitForRevision>[0]): void;
  /** Stops the changes; resolves with the service's last revision and the rounds made. */
  stop(): Promise<{ last: number; rounds: number }>;
  /** Closes the server and ends the thread. */
  close(): Promise<void>;
}

const WAIT_MS = 30_000;

/**
 * Starts the server of `seed` in a worker thread, serving `slug`.
 * @param options.fileSecret - false: the churn changes the two configs only (a service without file secrets).
 */
export async function startChurnServer(
  seed: VaneServerSeed,
  slug: string,
  options: { readonly fileSecret?: boolean } = {},
): Promise<ChurnServer> {
  const worker = new Worker(join(__dirname, 'churn-server.worker.mjs'), {
    workerData: { seed, slug, fileSecret: options.fileSecret !== false },
  });
  const next = async <T>(type: string): Promise<T> => {
    const ended = once(worker, 'exit').then(([code]) => {
      throw new Error(`the server thread ended (code ${String(code)}) before "${type}"`);
    });
    const answer = new Promise<T>((resolve) => {
      const on = (message: { type: string }): void => {
        if (message.type !== type) return;
        worker.off('message', on);
        resolve(message as T);
      };
      worker.on('message', on);
    });
    return withTimeout(Promise.race([answer, ended]), `the server thread's "${type}"`, { timeoutMs: WAIT_MS });
  };
  const errors = once(worker, 'error').then(([err]) => {
    throw err;
  });
  const ready = await Promise.race([next<{ baseUrl: string; secretKey: string }>('ready'), errors]);
  let stopChurnFeedback: (() => void) | undefined;
  return {
    baseUrl: ready.baseUrl,
    secretKey: ready.secretKey,
    churn: (client) => {
      let told = client.revision;
      const stopTelling = client.onUpdate(({ revision }) => {
        // Every 100 revisions: the window is thousands wide, a message per patch would be load of its own.
        if (revision - told < 100) return;
        told = revision;
        worker.postMessage({ type: 'applied', revision });
      });
      worker.once('exit', stopTelling);
      stopChurnFeedback = stopTelling;
      worker.postMessage({ type: 'churn' });
    },
    stop: async () => {
      stopChurnFeedback?.();
      const stopped = next<{ last: number; rounds: number }>('stopped');
      worker.postMessage({ type: 'stop' });
      return stopped;
    },
    close: async () => {
      const exited = once(worker, 'exit');
      worker.postMessage({ type: 'close' });
      await withTimeout(exited, 'the server thread to end', { timeoutMs: WAIT_MS });
    },
  };
}

/** Bytes of the heap in use after a full garbage collection (V8's `gc()`, exposed for this process). */
export function heapUsedAfterGc(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  // Twice: what the first collection finalises, the second frees.
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/**
 * `requests` GETs of `url` (16 at a time) while `server` changes its values
 * every millisecond; then waits (bounded) until `client` has applied the
 * last change. Resolves with the load's report and the rounds of changes made
 * during it.
 */
export async function loadWhileChanging(
  server: ChurnServer,
  url: string,
  client: Parameters<typeof waitForRevision>[0],
  requests: number,
): Promise<LoadReport & { rounds: number }> {
  const load = startLoad(url, { concurrency: 16, maxRequests: requests, maxMs: 110_000 });
  server.churn(client);
  let stopped: { last: number; rounds: number };
  let report: LoadReport;
  try {
    // Rejects when the load ends first (failures): the report says why.
    await load.more(requests, 110_000).catch(() => undefined);
  } finally {
    stopped = await server.stop();
    report = await load.stop();
  }
  await waitCaughtUp(client, stopped.last);
  return { ...report, rounds: stopped.rounds };
}

/** The longest the client may take to catch up with the service after a load, in all. */
const CATCH_UP_MAX_MS = 150_000;

/**
 * Waits on `client`'s update events until it serves `revision`. On a loaded
 * machine the client may end a load thousands of patches behind (the
 * service went on changing every millisecond while requests took the CPU):
 * the wait goes on while it catches up, and fails when a whole
 * {@link WAIT_MS} passes without its revision moving, or after
 * {@link CATCH_UP_MAX_MS} in all.
 */
async function waitCaughtUp(client: Parameters<typeof waitForRevision>[0], revision: number): Promise<void> {
  const deadline = Date.now() + CATCH_UP_MAX_MS;
  for (;;) {
    const from = client.revision;
    try {
      await waitForRevision(client, revision, { timeoutMs: WAIT_MS });
      return;
    } catch (err) {
      if (client.revision === from || Date.now() >= deadline) throw err;
    }
  }
}

/** Heap growth allowed over 10,000 requests once warm: far below what keeping a revision or a request each would cost. */
const HEAP_GROWTH_LIMIT = 4 * 1024 * 1024;

/**
 * What a load of 10,000 requests while values changed must leave: every
 * request answered, the changes really made (hundreds of rounds), no request
 * that read two revisions, a flat heap, no old revision held and only the
 * live version file of the rotated file secret on disk (with `fileSecret:
 * false`, the churn of a service without file secrets: no file at all, and,
 * the collector having run, no replaced revision reachable). Logs the figures.
 */
export async function expectOneRevisionPerRequest(
  app: string,
  client: VaneClient,
  report: LoadReport & { rounds: number },
  inconsistent: number,
  heap: { readonly before: number; readonly after: number },
  options: { readonly fileSecret?: boolean } = {},
): Promise<void> {
  expect(report).toMatchObject({ ok: 10_000, failed: 0, failures: [] });
  expect(report.rounds).toBeGreaterThan(100);
  expect(inconsistent).toBe(0);
  expect(heap.after - heap.before).toBeLessThan(HEAP_GROWTH_LIMIT);
  if (options.fileSecret === false) {
    expect(pinStatsOf(client)).toEqual({ heldRevisions: 0, fileVersions: 0 });
  } else {
    // Every response closed: no old revision is held, one file version (the live one) is on disk.
    expect(pinStatsOf(client)).toEqual({ heldRevisions: 0, fileVersions: 1 });
    const stable = client.requireSecretFile('tls.client_pem');
    const live = [basename(stable), `${basename(stable)}.v${client.secretInfo('tls.client_pem')!.version}`].sort();
    await until(() => readdirSync(dirname(stable)).length === live.length, 'the old version files to be removed', {
      timeoutMs: 10_000,
    });
    expect(readdirSync(dirname(stable)).sort()).toEqual(live);
  }
  const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);
  console.log(
    `${app}: ${report.rounds} rounds of changes during 10,000 requests; heap ${mib(heap.before)} → ${mib(heap.after)} MiB`,
  );
}
