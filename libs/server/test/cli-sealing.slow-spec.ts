import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { adminRequest, testSeed, withTimeout } from '../src/testing/index.js';
import { PROCESS_TEST_MS, PROCESS_WAIT_MS, spawnNode, stopProcesses, type NodeProcess } from '@vane/test-harness';

// The CLI as users run it: the built file, in a child process (`npm test` builds first).
const CLI = resolve(__dirname, '../dist/cjs/cli.js');
const TOKEN = 'cli-sealing-owner-token';

function run(args: string[], env: Record<string, string> = {}): NodeProcess {
  return spawnNode([CLI, ...args], {
    env: { ...process.env, VANE_ADMIN_TOKEN: TOKEN, VANE_ROOT_KEY: '', VANE_NEW_ROOT_KEY: '', ...env },
  });
}

async function exitCode(running: NodeProcess): Promise<number | null> {
  return (await withTimeout(running.exited, 'the CLI to exit', { timeoutMs: PROCESS_WAIT_MS })).code;
}

const newKey = (): string => randomBytes(32).toString('base64');

describe('vane-server: root keys, rotation and audit verify (command line)', () => {
  let dir: string;
  let statePath: string;
  let seedPath: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vane-cli-sealing-'));
    statePath = join(dir, 'state.json');
    seedPath = join(dir, 'seed.json');
    writeFileSync(seedPath, JSON.stringify(testSeed()));
  });
  afterEach(async () => {
    await stopProcesses();
    rmSync(dir, { recursive: true, force: true });
  }, PROCESS_TEST_MS);

  /** Starts the server, makes one secret write, and stops it; resolves with the root key id in use. */
  async function seal(env: Record<string, string>, args: string[] = []): Promise<string> {
    const server = run(['--seed', seedPath, '--state', statePath, '--port', '0', ...args], env);
    const [, url] = await server.line(/listening on (\S+)/);
    const [, id] = await server.line(/with root key (rk_[0-9a-f]+)/);
    await adminRequest({ url: url!, adminToken: TOKEN }, 'PUT', '/services/shop/secrets/db.password', {
      value: 'cli-canary',
    });
    server.child.kill('SIGTERM');
    expect(await exitCode(server)).toBe(0);
    return id!;
  }

  it(
    'refuses a token on the command line without echoing it',
    async () => {
      const running = run(['--admin-token', 'S3CRET_ON_ARGV', '--port', '0']);
      expect(await exitCode(running)).toBe(2);
      expect(running.output()).toMatch(/VANE_ADMIN_TOKEN/);
      expect(running.output()).not.toContain('S3CRET_ON_ARGV');
    },
    PROCESS_TEST_MS,
  );

  it(
    'a wrong root key: exit code 3 and one line naming the key id the data needs; no key echoed',
    async () => {
      const rightKey = newKey();
      const id = await seal({ VANE_ROOT_KEY: rightKey });
      const before = readFileSync(statePath);
      const wrongKey = newKey();
      const refused = run(['--state', statePath, '--port', '0'], { VANE_ROOT_KEY: wrongKey });
      expect(await exitCode(refused)).toBe(3);
      expect(refused.errorLines).toHaveLength(1);
      expect(refused.errorLines[0]).toContain(id);
      expect(refused.output()).not.toContain(wrongKey);
      expect(refused.output()).not.toContain(rightKey);
      expect(readFileSync(statePath).equals(before)).toBe(true);
    },
    PROCESS_TEST_MS,
  );

  it(
    'rotate-root-key: the running server re-wraps its data keys; the next start needs the new key alone',
    async () => {
      const keyFile = join(dir, 'root.key');
      writeFileSync(keyFile, `${newKey()}\n`, { mode: 0o600 });
      const server = run(['--seed', seedPath, '--state', statePath, '--port', '0', '--root-key-file', keyFile]);
      const [, url] = await server.line(/listening on (\S+)/);
      await adminRequest({ url: url!, adminToken: TOKEN }, 'PUT', '/services/shop/secrets/db.password', {
        value: 'cli-canary',
      });
      const next = newKey();
      const rotate = run(['rotate-root-key', '--url', url!], { VANE_NEW_ROOT_KEY: next });
      expect(await exitCode(rotate)).toBe(0);
      const [, rotatedTo] = await rotate.line(/root key is now (rk_[0-9a-f]+): 2 data key\(s\) wrapped again/);
      expect(rotate.output()).not.toContain(next);
      server.child.kill('SIGTERM');
      expect(await exitCode(server)).toBe(0);

      const again = run(['--state', statePath, '--port', '0'], { VANE_ROOT_KEY: next });
      const [, url2] = await again.line(/listening on (\S+)/);
      const sealing = await adminRequest({ url: url2!, adminToken: TOKEN }, 'GET', '/sealing');
      expect(sealing.body).toMatchObject({ sealed: true, root_key: rotatedTo });
      expect(readFileSync(statePath, 'utf8')).not.toContain('cli-canary');
    },
    PROCESS_TEST_MS,
  );

  it(
    'audit verify: exit 0 on an intact chain, 1 naming the first entry edited in the state file, 2 without the key of a keyed chain',
    async () => {
      const rootKey = newKey();
      await seal({ VANE_ROOT_KEY: rootKey });
      // A sealed store keys its chain: verifying it takes the root key.
      const keyless = run(['audit', 'verify', '--state', statePath]);
      expect(await exitCode(keyless)).toBe(2);
      expect(keyless.output()).toMatch(/keyed by audit key\(s\) ak_[0-9a-f]{16}/);
      expect(keyless.output()).not.toContain(rootKey);
      const intact = run(['audit', 'verify', '--state', statePath], { VANE_ROOT_KEY: rootKey });
      expect(await exitCode(intact)).toBe(0);
      expect(intact.output()).toMatch(/audit intact: 1 entries, chain verified, keyed/);

      const state = JSON.parse(readFileSync(statePath, 'utf8')) as { audit: Array<{ actor: string }> };
      state.audit[0]!.actor = 'someone-else';
      writeFileSync(statePath, JSON.stringify(state));
      const broken = run(['audit', 'verify', '--state', statePath], { VANE_ROOT_KEY: rootKey });
      expect(await exitCode(broken)).toBe(1);
      expect(broken.output()).toMatch(/audit broken at entry 1 \(position 1 of 1\): edited/);
    },
    PROCESS_TEST_MS,
  );
});
