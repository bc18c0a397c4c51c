import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startVaneServer, type VaneServer } from '@vane/server';
import { killLeftovers } from './support/process.js';
import { DEMO_SEED, startSample, type RunningSample } from './support/samples.js';
import { stuckConnection } from './support/stuck-connection.js';
import { PROCESS_TEST_MS } from '@vane/test-harness';

// Both samples, stopped while a client holds a connection open: the drain is bounded
// (DRAIN_TIMEOUT_MS), a second signal cuts it short, and no file secret stays on disk.
describe.each(['nest', 'express'] as const)('the %s sample, stopped with a stuck connection', (kind) => {
  let server: VaneServer;
  let tmp: string;
  let socket: Socket | undefined;

  beforeEach(async () => {
    server = await startVaneServer({ seed: DEMO_SEED, port: 0 });
    tmp = mkdtempSync(join(tmpdir(), 'sample-shutdown-'));
  });
  afterEach(async () => {
    socket?.destroy();
    await killLeftovers();
    await server.close();
    rmSync(tmp, { recursive: true, force: true });
  }, PROCESS_TEST_MS);

  /** The sample's own secrets directory (it has a file secret from the start). */
  const secretDirs = (): string[] => readdirSync(tmp).filter((name) => name.startsWith('vane-secrets-'));

  it(
    'one signal: the connections still open are closed at the drain timeout, Vane closes, exit 0',
    async () => {
      const app: RunningSample = await startSample(kind, server, { TMPDIR: tmp, DRAIN_TIMEOUT_MS: '300' });
      expect(secretDirs()).toHaveLength(1);
      const stuck = await stuckConnection(app.url);
      socket = stuck.socket;
      const timedOut = app.proc.nextLine(/drain timeout \(300 ms\): closing the connections still open/);
      app.proc.child.kill('SIGTERM');
      await timedOut;
      await stuck.closed;
      await expect(app.proc.exited).resolves.toEqual({ code: 0, signal: null });
      expect(app.proc.lines).toContainEqual(expect.stringMatching(new RegExp(`${kind} sample stopped`)));
      expect(secretDirs()).toEqual([]);
    },
    PROCESS_TEST_MS,
  );

  it(
    'two signals: the second closes the connections at once, Vane closes, exit 0',
    async () => {
      // A drain timeout far beyond the test's own: only the second signal can end this shutdown in time.
      const app = await startSample(kind, server, { TMPDIR: tmp, DRAIN_TIMEOUT_MS: '600000' });
      const stuck = await stuckConnection(app.url);
      socket = stuck.socket;
      const closing = app.proc.nextLine(/^SIGTERM: closing$/);
      app.proc.child.kill('SIGTERM');
      await closing;
      const again = app.proc.nextLine(/^SIGTERM again: closing now$/);
      app.proc.child.kill('SIGTERM');
      await again;
      await stuck.closed;
      await expect(app.proc.exited).resolves.toEqual({ code: 0, signal: null });
      expect(secretDirs()).toEqual([]);
    },
    PROCESS_TEST_MS,
  );
});
