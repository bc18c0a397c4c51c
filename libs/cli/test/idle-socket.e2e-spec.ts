import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startVaneServer, type VaneServer } from '@vane/server';
import { PROCESS_WAIT_MS, spawnNode, stopProcesses, type NodeProcess } from '@vane/test-harness';
import { runRefs } from '../src/refs/refs-command.js';
import { writeFlagReads } from './support/flag-reads.js';

// `vane refs --admin-url` reads the catalog, then scans the app (synchronous TypeScript work: seconds,
// more on a loaded machine), then reads the audit. A socket kept alive from the catalog requests and
// reused for the audit after the server's keep-alive timeout has closed it fails with ECONNRESET: the
// client's event loop, blocked by the scan, never saw the close. Here the server sits behind a proxy
// in another process whose keep-alive timeout is short, and the command's clock (`now`, called between
// the scan and the audit) blocks the event loop until that proxy has closed every connection: the
// idle is as long as it must be, by construction, not by timing.
// The scan builds a TypeScript program: seconds on a loaded machine.
jest.setTimeout(120_000);

const KEY = 'svs_shop_idle_socket_test';
// Node's agent keeps a socket alive for one second less than the server's `Keep-Alive: timeout=N`
// hint and not at all under two seconds: 2.5 s is the shortest timeout with which a client would reuse.
const KEEP_ALIVE_MS = 2_500;

let server: VaneServer;
let proxy: NodeProcess;
let proxyUrl: string;
let dir: string;

beforeAll(async () => {
  server = await startVaneServer({
    port: 0,
    seed: {
      services: {
        shop: { keys: [KEY], flags: { 'new-checkout': { is_enabled: true, starts_at: null, ends_at: null } } },
      },
    },
  });
  dir = mkdtempSync(join(__dirname, '.scratch-'));
  writeFlagReads(dir, ['new-checkout']);
  proxy = spawnNode([join(__dirname, 'support/keep-alive-proxy.mjs'), server.url, String(KEEP_ALIVE_MS), stateFile()], {
    cwd: dir,
    env: process.env,
  });
  proxyUrl = (await proxy.line(/^listening on (http:\/\/127\.0\.0\.1:\d+)$/))[1]!;
});

afterAll(async () => {
  await stopProcesses();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function stateFile(): string {
  return join(dir, 'proxy-connections');
}

/** Blocks the event loop until the proxy has accepted a connection and has none open, bounded. */
function blockUntilProxyClosedAll(): void {
  const deadline = Date.now() + PROCESS_WAIT_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    const [accepted, open] = readFileSync(stateFile(), 'utf8').split(' ').map(Number);
    if (accepted! > 0 && open === 0) return;
    if (Date.now() > deadline)
      throw new Error(`the proxy still had ${open} connections open after ${PROCESS_WAIT_MS} ms`);
    Atomics.wait(pause, 0, 0, 20); // between two reads of the file: the wait is on the proxy's close, not on this
  }
}

it('reads the audit after idling past the server keep-alive timeout between the catalog and the audit', async () => {
  let blocked = false;
  const { report, exitCode } = await runRefs(
    { dir, adminUrl: proxyUrl, service: 'shop', staleAfter: '30d', json: true },
    {
      cwd: dir,
      env: { VANE_ADMIN_TOKEN: server.adminToken },
      print: () => undefined,
      warn: () => undefined,
      now: () => {
        blockUntilProxyClosedAll();
        blocked = true;
        return Date.now();
      },
    },
  );
  expect(blocked).toBe(true);
  expect(exitCode).toBe(0);
  expect(report.staleFlags).toEqual([]);
  expect(report.uses.map((use) => use.key)).toEqual(['new-checkout']);
});
