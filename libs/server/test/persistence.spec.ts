import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SeedError, startVaneServer } from '../src/index.js';
import { call } from './support/http-client.js';
import { TEST_KEYS, testSeed } from '../src/testing/index.js';

describe('seed files and --state persistence', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vane-local-state-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('starts from a seed file on disk', async () => {
    const seedPath = join(dir, 'vane.seed.json');
    writeFileSync(seedPath, JSON.stringify(testSeed()));
    const server = await startVaneServer({ seed: seedPath });
    try {
      expect((await call(server, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret })).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('survives a restart: values, keys, versions and audit come back, the revision moves on', async () => {
    const statePath = join(dir, 'state.json');
    const first = await startVaneServer({ seed: testSeed(), statePath });
    first.admin.setConfig('shop', 'db.host', 'persisted');
    const key = first.admin.createKey('shop', 'secret');
    first.admin.setSecret('shop', 'stripe.api_key', 'rk_2');
    first.admin.deleteSecretVersion('shop', 'stripe.api_key', 2); // next version must still be 3
    first.admin.setTenant({ ab_addon: false });
    const revision = first.revision('shop');
    await first.close();
    expect(statSync(statePath).mode & 0o777).toBe(0o600);

    // The seed is ignored once a state file exists.
    const second = await startVaneServer({ seed: { services: {} }, statePath });
    try {
      const body = (await call(second, { path: '/v1/sync', slug: 'shop', key })).json<{
        revision: number;
        configs: Record<string, unknown>;
        secrets: Record<string, { version: number }>;
      }>();
      expect(body.configs['db.host']).toBe('persisted');
      expect(body.revision).toBe(revision + 1);
      expect(second.admin.setSecret('shop', 'stripe.api_key', 'rk_3').version).toBe(3);
      expect(second.admin.audit('shop').map((e) => e.action)).toEqual([
        'secret.set',
        'secret.version.delete',
        'secret.set',
      ]);
      const evaluate = await call(second, {
        method: 'POST',
        path: '/v1/flags/evaluate-ab',
        slug: 'shop',
        key,
        body: { keys: ['beta'], user_id: 'u' },
      });
      expect(evaluate.status).toBe(403);
    } finally {
      await second.close();
    }
  });

  it('refuses a corrupt state file with an error naming the file, never a silent reset', async () => {
    const statePath = join(dir, 'state.json');
    writeFileSync(statePath, '{"services": {"shop": {"configs": ');
    await expect(startVaneServer({ seed: testSeed(), statePath })).rejects.toThrow(SeedError);
    await expect(startVaneServer({ seed: testSeed(), statePath })).rejects.toThrow(statePath);
    expect(readFileSync(statePath, 'utf8')).toBe('{"services": {"shop": {"configs": ');
  });

  it('refuses a state file with a bad value, naming the JSON path', async () => {
    const statePath = join(dir, 'state.json');
    writeFileSync(statePath, JSON.stringify({ services: { shop: { configs: { 'a.b': { nested: 1 } } } } }));
    // A state written by hand is not sealed: it takes a key to start.
    await expect(startVaneServer({ statePath, rootKey: randomBytes(32).toString('base64') })).rejects.toThrow(
      `${statePath}: services.shop.configs["a.b"]: objects are not config values`,
    );
  });

  it('refuses a bad seed naming the JSON path, without echoing keys', async () => {
    const seed = testSeed();
    seed.services!['other']!.keys = [TEST_KEYS.shopSecret];
    const error = await startVaneServer({ seed }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SeedError);
    expect((error as SeedError).message).toMatch(/services\.other\.keys\[0\]/);
    expect((error as SeedError).message).not.toContain(TEST_KEYS.shopSecret);
  });

  it('reports a missing seed file by name', async () => {
    const missing = join(dir, 'missing.json');
    await expect(startVaneServer({ seed: missing })).rejects.toThrow(missing);
  });
});
