/**
 * A graceful restart as a platform does it, with one replica: SIGTERM to the
 * server process, which sends `goaway` to every stream (spread over its
 * drain window), then exits; a second process on the same state file and
 * port takes over. Every client must follow: no error raised to the app,
 * no client in the polling fallback, every client on the new server's
 * latest revision.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { VaneClient, type VaneLogger } from '@vane/client';
import { TEST_KEYS, testSeed, until, withTimeout } from '@vane/server/testing';
import { PROCESS_WAIT_MS, spawnNode, stopProcesses, type NodeProcess } from '@vane/test-harness';
import { get } from './support/http.js';

const CLI = resolve(__dirname, '../libs/server/dist/cjs/cli.js');
const CLIENTS = 200;
const DRAIN_WINDOW_MS = 4000;
// Also the margin the successor has to start: bounced streams come back after window + timeout.
const DRAIN_TIMEOUT_MS = 8000;
const TOKEN = 'drain-test-admin-token';

/** Open streams the server process reports on its /metrics. */
async function openStreams(url: string): Promise<number> {
  const text = (await get(`${url}/metrics`)).text;
  return text
    .split('\n')
    .filter((line) => line.startsWith('vane_streams_open{'))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}

describe('SIGTERM drains every stream to the next server process', () => {
  let dir: string;
  const clients: VaneClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await stopProcesses();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it(`${CLIENTS} clients follow goaway: 0 errors raised, 0 in the polling fallback, all on the latest revision`, async () => {
    dir = mkdtempSync(join(tmpdir(), 'vane-drain-'));
    const seed = join(dir, 'seed.json');
    writeFileSync(seed, JSON.stringify(testSeed()));
    const state = join(dir, 'state.json');
    const start = (port: number): NodeProcess =>
      spawnNode([CLI, '--seed', seed, '--state', state, '--port', String(port)], {
        env: {
          ...process.env,
          VANE_ADMIN_TOKEN: TOKEN,
          VANE_DRAIN_WINDOW_MS: String(DRAIN_WINDOW_MS),
          VANE_DRAIN_TIMEOUT_MS: String(DRAIN_TIMEOUT_MS),
          VANE_LOG_FORMAT: 'json',
        },
      });
    const first = start(0);
    const [, url] = await first.line(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/);
    const port = Number(new URL(url!).port);

    const warnings: string[] = [];
    const errors: string[] = [];
    const logger: VaneLogger = {
      debug: () => undefined,
      info: () => undefined,
      warn: (m) => void warnings.push(m),
      error: (m) => void errors.push(m),
    };
    // In batches: 200 initial syncs at once would only measure the machine.
    while (clients.length < CLIENTS) {
      const batch = Array.from({ length: Math.min(20, CLIENTS - clients.length) }, () =>
        VaneClient.create({ baseUrl: `http://shop.localhost:${port}`, apiKey: TEST_KEYS.shopSecret, logger }),
      );
      clients.push(...(await Promise.all(batch)));
    }
    await until(() => clients.every((c) => c.connected), 'every client to connect', { timeoutMs: 60_000 });
    await until(async () => (await openStreams(url!)) === CLIENTS, 'every stream on the first server', {
      timeoutMs: 60_000,
    });
    let disconnected = 0;
    for (const client of clients) client.onStatusChange((status) => void (status.connected || disconnected++));
    // The app reads all along; a read that throws would be an error raised to it.
    let readErrors = 0;
    const reading = setInterval(() => {
      for (const client of clients) {
        try {
          client.config('db.host');
        } catch {
          readErrors++;
        }
      }
    }, 100);

    try {
      const stoppedAt = Date.now();
      first.child.kill('SIGTERM');
      const exit = await withTimeout(first.exited, 'the drained server to exit', {
        timeoutMs: DRAIN_WINDOW_MS + DRAIN_TIMEOUT_MS + PROCESS_WAIT_MS,
      });
      const drainMs = Date.now() - stoppedAt;
      expect(exit.code).toBe(0);
      expect(drainMs).toBeLessThan(DRAIN_WINDOW_MS + DRAIN_TIMEOUT_MS + 5000);
      expect(first.output()).toContain('"event":"drain_started"');
      expect(first.output()).toContain(`"streams":${CLIENTS}`);

      const second = start(port);
      const [, secondUrl] = await second.line(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/);
      const successorMs = Date.now() - stoppedAt - drainMs;
      await until(async () => (await openStreams(secondUrl!)) === CLIENTS, 'every stream on the second server', {
        timeoutMs: 60_000,
      });
      const change = await fetch(`${secondUrl}/admin/v1/services/shop/configs/db.host`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ value: 'after-the-restart' }),
      });
      const { revision } = (await change.json()) as { revision: number };
      await until(() => clients.every((c) => c.view().revision === revision), 'every client on the latest revision', {
        timeoutMs: 30_000,
      });
      expect(clients.every((c) => c.config('db.host') === 'after-the-restart')).toBe(true);
      expect(clients.every((c) => c.connected && c.status.mode === 'stream')).toBe(true);
      expect(disconnected).toBe(0);
      expect(readErrors).toBe(0);
      expect(errors).toEqual([]);
      // Not one transport error: every reconnect met a server that answered it.
      expect(warnings).toEqual([]);
      console.log(
        `drain: ${CLIENTS} streams, exit ${drainMs} ms after SIGTERM (window ${DRAIN_WINDOW_MS} ms), successor listening ${successorMs} ms later`,
      );
    } finally {
      clearInterval(reading);
    }
  }, 180_000);
});
