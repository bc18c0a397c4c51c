import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { VaneClient } from '@vane/client';
import { startVaneServer, type VaneServer } from '@vane/server';
import { killLeftovers, spawnNode, type Exit, type Proc } from './support/process.js';
import { ROOT, baseEnv } from './support/samples.js';
import { PROCESS_TEST_MS } from '@vane/test-harness';

// A process with a file secret ends each way a process can end; then a new client starts on the same
// directory. Whatever the way, no secrets directory of a dead process survives that second start, and
// the directory of a process still running is never touched.
const KEY = 'svs_exit_ways_key_000000001';
const FIXTURE = join(ROOT, 'test/fixtures/secret-files/exit-ways.ts');

describe('file secrets, however the process ends', () => {
  let server: VaneServer;
  let tmp: string;

  beforeAll(async () => {
    server = await startVaneServer({
      seed: { services: { shop: { keys: [KEY], secrets: { 'tls.pem': { type: 'file', value: 'PEM' } } } } },
      port: 0,
    });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'exit-ways-'));
  });
  afterEach(async () => {
    await killLeftovers();
    rmSync(tmp, { recursive: true, force: true });
  }, PROCESS_TEST_MS);

  /** Starts the fixture with its temp dir in `tmp`, and waits for the secrets directory it prints (once its file is written). */
  async function child(way: string): Promise<{ proc: Proc; dir: string }> {
    const proc = spawnNode(['--import', join(ROOT, 'scripts/ts-register.mjs'), FIXTURE, way], {
      cwd: ROOT,
      env: { ...baseEnv(), TMPDIR: tmp, VANE_BASE_URL: server.baseUrl('shop'), VANE_API_KEY: KEY },
    });
    const [, dir] = await proc.nextLine(/^(\/\S*\/vane-secrets-\S+)$/);
    return { proc, dir: dir! };
  }

  /** A second start on the same directory, closed at once. */
  async function secondStart(): Promise<void> {
    const client = await VaneClient.create({
      baseUrl: server.baseUrl('shop'),
      apiKey: KEY,
      stream: false,
      secretsDir: tmp,
    });
    await client.close();
  }

  it.each<[string, string, (proc: Proc) => void, Partial<Exit>, boolean]>([
    ['graceful close()', 'close', () => undefined, { code: 0 }, true],
    ['process.exit()', 'exit', () => undefined, { code: 0 }, true],
    ['SIGTERM with no handler', 'wait', (p) => p.child.kill('SIGTERM'), { signal: 'SIGTERM' }, true],
    ['SIGINT with no handler', 'wait', (p) => p.child.kill('SIGINT'), { signal: 'SIGINT' }, true],
    ['an uncaught exception', 'uncaught-exception', () => undefined, { code: 1 }, true],
    ['a Nest bootstrap that fails after Vane is up', 'nest-bootstrap-fails', () => undefined, { code: 1 }, true],
    ['SIGKILL', 'wait', (p) => p.child.kill('SIGKILL'), { signal: 'SIGKILL' }, false],
  ])(
    '%s: no directory survives the next start',
    async (_name, way, end, exit, goneAtExit) => {
      const { proc, dir } = await child(way);
      end(proc);
      await expect(proc.exited).resolves.toMatchObject(exit);
      // Every way but SIGKILL removes the files as the process ends; SIGKILL leaves them to the next start.
      expect(existsSync(dir)).toBe(!goneAtExit);
      await secondStart();
      expect(readdirSync(tmp)).toEqual([]);
    },
    PROCESS_TEST_MS,
  );

  it(
    "a live process's directory is never touched; a killed one's is swept",
    async () => {
      const live = await child('wait');
      const killed = await child('wait');
      killed.proc.child.kill('SIGKILL');
      await killed.proc.exited;
      await secondStart();
      expect(readdirSync(tmp)).toEqual([basename(live.dir)]);
      // The secret's stable file and the file of the version the served revision holds (#21).
      expect(readdirSync(live.dir)).toHaveLength(2);
      live.proc.child.kill('SIGTERM');
      await live.proc.exited;
      expect(readdirSync(tmp)).toEqual([]);
    },
    PROCESS_TEST_MS,
  );
});
