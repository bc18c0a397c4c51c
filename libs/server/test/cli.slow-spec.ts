import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PROCESS_TEST_MS, PROCESS_WAIT_MS, spawnNode, stopProcesses, type NodeProcess } from '@vane/test-harness';
import { TEST_KEYS, testSeed, withTimeout } from '../src/testing/index.js';

// The CLI is tested as users run it: the built file, in a child process (`npm test` builds first).
const CLI = resolve(__dirname, '../dist/cjs/cli.js');

function run(args: string[], env: Record<string, string> = {}): NodeProcess {
  return spawnNode([CLI, ...args], {
    env: { ...process.env, ...env, VANE_ADMIN_TOKEN: env['VANE_ADMIN_TOKEN'] ?? '' },
  });
}

/** The exit code, once the CLI has exited (bounded). */
async function exitCode(running: NodeProcess): Promise<number | null> {
  return (await withTimeout(running.exited, 'the CLI to exit', { timeoutMs: PROCESS_WAIT_MS })).code;
}

function get(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((done, reject) => {
    request(url, { headers, setHost: false }, (res) => {
      res.resume();
      done(res.statusCode ?? 0);
    })
      .on('error', reject)
      .end();
  });
}

describe('vane-local-server (command line)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vane-cli-'));
  });
  afterEach(async () => {
    await stopProcesses();
    rmSync(dir, { recursive: true, force: true });
  }, PROCESS_TEST_MS);

  it(
    'prints "listening on", the services with redacted keys and the generated admin token; SIGTERM closes it',
    async () => {
      const seedPath = join(dir, 'vane.seed.json');
      writeFileSync(seedPath, JSON.stringify(testSeed()));
      const running = run(['--seed', seedPath, '--port', '0']);
      const [, url] = await running.line(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      const [, token] = await running.line(/token: (\S+)/);
      await running.line(/service web/);
      const port = new URL(url!).port;
      expect(running.output()).toContain(`service shop (backend): http://shop.localhost:${port}`);
      expect(running.output()).not.toContain(TEST_KEYS.shopSecret);
      expect(running.output()).toContain('svs_…cret');
      expect(running.output()).toContain(`web console: ${url}/console/`);
      expect(
        await get(`${url}/v1/sync`, { host: `shop.localhost:${port}`, 'x-service-api-key': TEST_KEYS.shopSecret }),
      ).toBe(200);
      expect(await get(`${url}/admin/v1/services`, { host: 'x', authorization: `Bearer ${token}` })).toBe(200);
      running.child.kill('SIGTERM');
      expect(await exitCode(running)).toBe(0);
    },
    PROCESS_TEST_MS,
  );

  it(
    'takes the admin token from VANE_ADMIN_TOKEN and does not print it',
    async () => {
      const running = run(['--port', '0'], { VANE_ADMIN_TOKEN: 'from-the-environment' });
      const [, url] = await running.line(/listening on (\S+)/);
      await running.line(/token:/);
      expect(running.output()).not.toContain('from-the-environment');
      expect(await get(`${url}/admin/v1/services`, { host: 'x', authorization: 'Bearer from-the-environment' })).toBe(
        200,
      );
    },
    PROCESS_TEST_MS,
  );

  it(
    'stops with exit code 1 and names the file and JSON path of a bad seed',
    async () => {
      const seedPath = join(dir, 'bad.seed.json');
      writeFileSync(seedPath, JSON.stringify({ services: { shop: { configs: { 'a.b': { x: 1 } } } } }));
      const running = run(['--seed', seedPath, '--port', '0']);
      expect(await exitCode(running)).toBe(1);
      expect(running.output()).toContain(`${seedPath}: services.shop.configs["a.b"]: objects are not config values`);
    },
    PROCESS_TEST_MS,
  );

  it(
    'refuses unknown options and bad ports with usage and exit code 2',
    async () => {
      for (const args of [
        ['--nope'],
        ['--port', 'abc'],
        ['--port', '70000'],
        ['--session-ttl-ms', '5'],
        ['--session-ttl-ms', 'x'],
        ['--headers-timeout-ms', '999'],
        ['--request-timeout-ms', 'soon'],
        ['--headers-timeout-ms', '5000', '--request-timeout-ms', '2000'],
      ]) {
        const running = run(args);
        expect(await exitCode(running)).toBe(2);
      }
    },
    PROCESS_TEST_MS,
  );

  it(
    'answers 408 to a half-sent request after --headers-timeout-ms',
    async () => {
      // The default (10 s) is past the wait below: a 408 within it shows the option took effect.
      const running = run(['--port', '0', '--headers-timeout-ms', '1000', '--request-timeout-ms', '1000']);
      const [, url] = await running.line(/listening on (\S+)/);
      const socket = connect(Number(new URL(url!).port), '127.0.0.1');
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      const closed = new Promise<void>((done) => socket.once('close', () => done()));
      socket.write('GET /admin/v1/services HTTP/1.1\r\nHost: x\r\n');
      try {
        await withTimeout(closed, 'the server to close the half-sent request');
      } finally {
        socket.destroy();
      }
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
    },
    PROCESS_TEST_MS,
  );

  it(
    'refuses a stray argument without echoing it (it is often a token)',
    async () => {
      const running = run(['--seed=', 'S3CRET_ADMIN_TOKEN']);
      expect(await exitCode(running)).toBe(2);
      expect(running.output()).toContain('unexpected argument');
      expect(running.output()).not.toContain('S3CRET');
      // A secret is refused on argv whatever its form, without quoting it.
      for (const args of [['--admin-token', 'S3CRET_ADMIN_TOKEN'], ['--admin-token=S3CRET_ADMIN_TOKEN']]) {
        const refused = run(args);
        expect(await exitCode(refused)).toBe(2);
        expect(refused.output()).toContain('--admin-token: secrets are not taken from the command line');
        expect(refused.output()).not.toContain('S3CRET');
      }
    },
    PROCESS_TEST_MS,
  );

  it(
    'check-config (as vane-server) prints each setting with its source, or names the wrong one with exit code 2',
    async () => {
      const bin = resolve(__dirname, '../bin/vane-server.cjs');
      const config = join(dir, 'vane.yaml');
      writeFileSync(config, 'port: 4500\nstore: file:vane.state.json\n');
      const tokenFile = join(dir, 'admin-token');
      writeFileSync(tokenFile, 'S3CRET_FROM_FILE\n');
      const good = spawnNode([bin, 'check-config', '--config', config, '--admin-token-file', tokenFile], {
        env: { ...process.env, VANE_ADMIN_TOKEN: '', VANE_HOST: '10.1.2.3' },
      });
      expect(await exitCode(good)).toBe(0);
      expect(good.output()).toContain(`port = 4500  (${config}: port)`);
      expect(good.output()).toContain('host = 10.1.2.3  (VANE_HOST)');
      expect(good.output()).toContain('admin-token = (set)  (--admin-token-file)');
      expect(good.output()).toContain('configuration OK');
      expect(good.output()).not.toContain('S3CRET');

      writeFileSync(config, 'port: 4500\ntrust-proxyy: 10.0.0.0/8\n');
      const bad = spawnNode([bin, 'check-config', '--config', config], {
        env: { ...process.env, VANE_ADMIN_TOKEN: 'x' },
      });
      expect(await exitCode(bad)).toBe(2);
      expect(bad.output()).toContain(`vane-server: ${config}: trust-proxyy: unknown setting`);

      const tokenless = spawnNode([bin, '--port', '0'], { env: { ...process.env, VANE_ADMIN_TOKEN: '' } });
      expect(await exitCode(tokenless)).toBe(2);
      expect(tokenless.output()).toContain('vane-server: VANE_ADMIN_TOKEN: vane-server needs an admin token');
    },
    PROCESS_TEST_MS,
  );

  it(
    'persists with --state across a restart',
    async () => {
      const statePath = join(dir, 'state.json');
      const seedPath = join(dir, 'vane.seed.json');
      writeFileSync(seedPath, JSON.stringify(testSeed()));
      const first = run(['--seed', seedPath, '--port', '0', '--state', statePath], { VANE_ADMIN_TOKEN: 't0ken' });
      const [, url] = await first.line(/listening on (\S+)/);
      const status = await new Promise<number>((done, reject) => {
        const req = request(
          `${url}/admin/v1/services/shop/configs/db.host`,
          {
            method: 'PUT',
            headers: { authorization: 'Bearer t0ken', 'content-type': 'application/json' },
          },
          (res) => {
            res.resume();
            done(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify({ value: 'from-state' }));
      });
      expect(status).toBe(200);
      first.child.kill('SIGINT');
      expect(await exitCode(first)).toBe(0);

      const second = run(['--port', '0', '--state', statePath]);
      const [, url2] = await second.line(/listening on (\S+)/);
      const port = new URL(url2!).port;
      const body = await new Promise<string>((done, reject) => {
        request(
          `${url2}/v1/sync`,
          { headers: { host: `shop.localhost:${port}`, 'x-service-api-key': TEST_KEYS.shopSecret }, setHost: false },
          (res) => {
            let text = '';
            res.on('data', (c: Buffer) => (text += c.toString()));
            res.on('end', () => done(text));
          },
        )
          .on('error', reject)
          .end();
      });
      expect(JSON.parse(body).configs['db.host']).toBe('from-state');
    },
    PROCESS_TEST_MS,
  );

  it(
    'exits 1 on a rejection nothing handled, its message cleaned of the credentials it carried',
    async () => {
      const secrets = {
        FAKE_DB_PASSWORD: 'db-password-3f9a7c',
        FAKE_LEAKED_KEY: 'svs_shop_leaked_0123456789',
        VANE_ADMIN_TOKEN: 'admin-token-8e1d2b77',
      };
      const preload = resolve(__dirname, 'fixtures/processes/reject-once-serving.mjs');
      const running = run(['--port', '0'], { ...secrets, NODE_OPTIONS: `--import ${preload}` });
      await running.line(/an unhandled rejection: Error: driver failed/);
      expect(await exitCode(running)).toBe(1);
      const output = running.output();
      expect(output).toContain('postgres://vane:***@127.0.0.1/vane, key svs_…6789, admin [redacted]');
      for (const secret of Object.values(secrets)) expect(output).not.toContain(secret);
    },
    PROCESS_TEST_MS,
  );
});
