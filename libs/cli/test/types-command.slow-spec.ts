import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startVaneServer, type VaneServer } from '@vane/server';
import { adminRequest } from '@vane/server/testing';
import { ADAPTER_SECRET_VALUES, adapterSeed } from '@vane/test-harness';
import { runVane } from './support/run-vane.js';

// `vane types` against a running local server: from the service (API key from the environment or a
// file), from a seed, from the server with an admin token; `--check`; and bad input, which is one line,
// exit status 2, and nothing written.
// `--check` loads the TypeScript compiler: seconds on a loaded machine.
jest.setTimeout(60_000);

let server: VaneServer;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  server = await startVaneServer({ seed: adapterSeed(), port: 0 });
  dir = mkdtempSync(join(tmpdir(), 'vane-cli-'));
  env = { VANE_API_KEY: server.secretKey('shop') };
});

afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const out = (): string => join(dir, 'src/vane-keys.d.ts');

/** A TCP port nothing listens on: one the system just gave out and took back. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('vane types', () => {
  it('writes src/vane-keys.d.ts from the service, with no value in it', async () => {
    const run = await runVane(['types', '--base-url', server.baseUrl('shop')], dir, env);
    expect(run.code).toBe(0);
    expect(run.stdout.join('\n')).toContain('6 configs, 5 flags, 2 secrets');
    const text = readFileSync(out(), 'utf8');
    expect(text).toContain(
      'readonly flags: readonly ["beta", "big-banner", "dark-mode", "new-checkout", "new-pricing"];',
    );
    for (const value of Object.values(ADAPTER_SECRET_VALUES)) expect(text).not.toContain(value);
    expect(text).not.toContain(server.secretKey('shop'));
  });

  it('reads the API key from --api-key-file, and warns about --api-key', async () => {
    writeFileSync(join(dir, 'key'), `${server.secretKey('shop')}\n`);
    const fromFile = await runVane(['types', '--base-url', server.baseUrl('shop'), '--api-key-file', 'key'], dir);
    expect(fromFile).toMatchObject({ code: 0, stderr: [] });
    const onArgv = await runVane(
      ['types', '--base-url', server.baseUrl('shop'), '--api-key', server.secretKey('shop')],
      dir,
    );
    expect(onArgv.code).toBe(0);
    expect(onArgv.stderr).toEqual([expect.stringContaining('use VANE_API_KEY or --api-key-file')]);
    expect(onArgv.stderr.join('')).not.toContain(server.secretKey('shop'));
  });

  it('declares no secrets from a public key, which cannot see them', async () => {
    const run = await runVane(['types', '--base-url', server.baseUrl('shop')], dir, {
      VANE_API_KEY: server.publicKey('shop'),
    });
    expect(run.code).toBe(0);
    expect(readFileSync(out(), 'utf8')).not.toContain('secrets');
  });

  it('writes the same file from a seed and from the admin API', async () => {
    writeFileSync(join(dir, 'seed.json'), JSON.stringify(adapterSeed()));
    const fromService = await runVane(['types', '--base-url', server.baseUrl('shop'), '--out', 'a.d.ts'], dir, env);
    const fromSeed = await runVane(['types', '--seed', 'seed.json', '--service', 'shop', '--out', 'b.d.ts'], dir);
    const fromAdmin = await runVane(['types', '--admin-url', server.url, '--service', 'shop', '--out', 'c.d.ts'], dir, {
      VANE_ADMIN_TOKEN: server.adminToken,
    });
    expect([fromService.code, fromSeed.code, fromAdmin.code]).toEqual([0, 0, 0]);
    const body = (file: string): string => readFileSync(join(dir, file), 'utf8').split('\n').slice(1).join('\n');
    expect(body('b.d.ts')).toBe(body('a.d.ts'));
    expect(body('c.d.ts')).toBe(body('a.d.ts'));
  });

  it('reads the keys with an admin token scoped to the service and the read right, and only with the right', async () => {
    const token = async (name: string, rights: string[]): Promise<string> => {
      const answer = await adminRequest(server, 'POST', '/tokens', { name, scope: { services: ['shop'] }, rights });
      return (answer.body as { token: string }).token;
    };
    const reader = await token('ci-readonly', ['read']);
    const run = await runVane(['types', '--admin-url', server.url, '--service', 'shop'], dir, {
      VANE_ADMIN_TOKEN: reader,
    });
    expect(run).toMatchObject({ code: 0, stderr: [] });
    expect(readFileSync(out(), 'utf8')).toContain('readonly "stripe.api_key": "text";');
    const other = await runVane(['types', '--admin-url', server.url, '--service', 'web', '--out', 'web.d.ts'], dir, {
      VANE_ADMIN_TOKEN: reader,
    });
    expect(other.code).toBe(2);
    expect(other.stderr).toEqual([expect.stringMatching(/^vane: the admin API at .* answered not_found: /)]);
    const writer = await token('ci-writer', ['write']);
    const refused = await runVane(['types', '--admin-url', server.url, '--service', 'shop', '--out', 'w.d.ts'], dir, {
      VANE_ADMIN_TOKEN: writer,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toEqual([expect.stringMatching(/^vane: the admin API at .* answered forbidden: /)]);
    expect(refused.stderr[0]).not.toContain(writer);
  });

  it('--check: 0 when up to date; 1 listing the keys added, removed and retyped', async () => {
    expect((await runVane(['types', '--base-url', server.baseUrl('shop')], dir, env)).code).toBe(0);
    const before = readFileSync(out(), 'utf8');
    const upToDate = await runVane(['types', '--check', '--base-url', server.baseUrl('shop')], dir, env);
    expect(upToDate.code).toBe(0);

    await adminRequest(server, 'PUT', '/services/shop/configs/db.pool.max', { value: '10' });
    await adminRequest(server, 'PUT', '/services/shop/flags/holiday-banner', {
      is_enabled: true,
      starts_at: null,
      ends_at: null,
    });
    await adminRequest(server, 'DELETE', '/services/shop/configs/banner.text');
    await adminRequest(server, 'PUT', '/services/shop/secrets/stripe.api_key', { value: 'x', type: 'file' });
    const stale = await runVane(['types', '--check', '--base-url', server.baseUrl('shop')], dir, env);
    expect(stale.code).toBe(1);
    expect(stale.stdout.slice(1, -1)).toEqual([
      '  - config banner.text: null (removed)',
      '  ~ config db.pool.max: number → string (retyped)',
      '  + flag holiday-banner (added)',
      '  ~ secret stripe.api_key: text → file (retyped)',
    ]);
    expect(readFileSync(out(), 'utf8')).toBe(before);
  });

  it('--check: 1 when the file does not exist', async () => {
    const run = await runVane(['types', '--check', '--base-url', server.baseUrl('shop')], dir, env);
    expect(run.code).toBe(1);
    expect(existsSync(out())).toBe(false);
  });

  it('--check: a file vane types did not write is bad input (exit 2), left as it was', async () => {
    writeFileSync(join(dir, 'other.d.ts'), 'export type Other = string;\n');
    const run = await runVane(
      ['types', '--check', '--out', 'other.d.ts', '--base-url', server.baseUrl('shop')],
      dir,
      env,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toEqual([
      `vane: ${join(dir, 'other.d.ts')}: no VaneRegister schema in it (was it written by vane types?)`,
    ]);
    expect(readFileSync(join(dir, 'other.d.ts'), 'utf8')).toBe('export type Other = string;\n');
  });

  describe('bad input: one line naming it, exit status 2, nothing written', () => {
    const cases: [string, () => Promise<{ argv: string[]; env: NodeJS.ProcessEnv }>, RegExp][] = [
      [
        'an unreachable service',
        async () => ({ argv: ['--base-url', `http://shop.localhost:${await closedPort()}`], env }),
        /^vane: cannot reach the service at http:\/\/shop\.localhost:\d+: ECONNREFUSED$/,
      ],
      [
        'a wrong API key',
        async () => ({
          argv: ['--base-url', server.baseUrl('shop')],
          env: { VANE_API_KEY: 'svs_not_a_key_of_this_service' },
        }),
        /^vane: the service at http:\/\/shop\.localhost:\d+ refused the API key \(unauthorized\)$/,
      ],
      [
        'a wrong admin token',
        async () => ({
          argv: ['--admin-url', server.url, '--service', 'shop'],
          env: { VANE_ADMIN_TOKEN: 'not-the-token' },
        }),
        /^vane: the admin API at http:\/\/127\.0\.0\.1:\d+ refused the admin token$/,
      ],
      [
        'an unparsable seed',
        async () => {
          writeFileSync(
            join(dir, 'seed.json'),
            '{"services": {"shop": {"secrets": {"k": {"value": "rk_live_SECRET"}}}\n',
          );
          return { argv: ['--seed', 'seed.json'], env: {} };
        },
        /^vane: seed\.json: not valid JSON at line 2, column 1$/,
      ],
      [
        'a missing seed',
        async () => ({ argv: ['--seed', 'nope.json'], env: {} }),
        /^vane: nope\.json: cannot read it \(ENOENT\)$/,
      ],
      [
        'no API key',
        async () => ({ argv: ['--base-url', server.baseUrl('shop')], env: {} }),
        /^vane: --base-url needs an API key: set VANE_API_KEY or give --api-key-file FILE$/,
      ],
      ['no source', async () => ({ argv: [], env: {} }), /^vane: no source of keys/],
    ];
    it.each(cases)('%s', async (_name, setup, message) => {
      writeFileSync(join(dir, 'existing.d.ts'), 'kept\n');
      const { argv, env: runEnv } = await setup();
      for (const target of ['existing.d.ts', 'new.d.ts']) {
        const run = await runVane(['types', ...argv, '--out', target], dir, runEnv);
        expect(run.code).toBe(2);
        expect(run.stderr).toEqual([expect.stringMatching(message)]);
        expect(run.stderr[0]).not.toContain('SECRET');
      }
      expect(readFileSync(join(dir, 'existing.d.ts'), 'utf8')).toBe('kept\n');
      expect(existsSync(join(dir, 'new.d.ts'))).toBe(false);
    });
  });
});
