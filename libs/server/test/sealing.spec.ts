import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  RootKeyMissingError,
  SealedDataError,
  startVaneServer,
  type VaneServer,
  type VaneServerOptions,
} from '../src/index.js';
import { TEST_KEYS, TEST_SECRET_VALUES, testSeed } from '../src/testing/index.js';
import { admin, call } from './support/http-client.js';
import { rotateUnderWrites } from './support/rotate-under-writes.js';

const newKey = (): string => randomBytes(32).toString('base64');

/** Every file in `dir` and its bytes: what a backup of the directory would hold. */
function storedBytes(dir: string): Array<[string, Buffer]> {
  return readdirSync(dir)
    .filter((name) => !name.endsWith('.root-key'))
    .map((name) => [name, readFileSync(join(dir, name))]);
}

/** A checksum of every stored file, the key file included. */
function checksum(dir: string): string {
  const hash = createHash('sha256');
  for (const name of readdirSync(dir).sort()) hash.update(name).update(readFileSync(join(dir, name)));
  return hash.digest('hex');
}

async function secretsOf(server: VaneServer, slug = 'shop', key: string = TEST_KEYS.shopSecret) {
  const answer = await call(server, { path: '/v1/sync', slug, key });
  expect(answer.status).toBe(200);
  return answer.json<{ secrets: Record<string, { value: string; version: number }> }>().secrets;
}

describe('secrets sealed at rest (file store)', () => {
  let dir: string;
  let statePath: string;
  let server: VaneServer | undefined;
  const start = async (options: Partial<VaneServerOptions> = {}): Promise<VaneServer> =>
    (server = await startVaneServer({ seed: testSeed(), statePath, ...options }));

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vane-sealing-'));
    statePath = join(dir, 'state.json');
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps no secret value and no API key in any stored byte: state file, journal, after compaction', async () => {
    const rootKey = newKey();
    await start({ rootKey });
    const canaries: string[] = [...Object.values(TEST_SECRET_VALUES)];
    for (let n = 0; n < 5; n++) {
      const canary = `canary-admin-${n}-${randomBytes(6).toString('hex')}`;
      canaries.push(canary);
      expect((await admin(server!, 'PUT', `/services/shop/secrets/c.${n}`, { value: canary })).status).toBe(200);
      const viaKey = `canary-key-${n}-${randomBytes(6).toString('hex')}`;
      canaries.push(viaKey);
      const put = await call(server!, {
        method: 'PUT',
        path: `/v1/secrets/k.${n}`,
        slug: 'shop',
        key: TEST_KEYS.shopSecret,
        body: { value: viaKey, type: 'file' },
      });
      expect(put.status).toBe(200);
    }
    const created = (await admin(server!, 'POST', '/services/shop/keys', { type: 'secret' })).json<{ key: string }>()
      .key;
    const keys = [...Object.values(TEST_KEYS), created];
    const look = (when: string): void => {
      for (const [name, bytes] of storedBytes(dir)) {
        const text = bytes.toString('utf8');
        for (const secret of [...canaries, ...keys, rootKey]) {
          expect({ when, name, found: text.includes(secret) ? secret : null }).toEqual({ when, name, found: null });
        }
      }
    };
    look('while the journal holds the changes');
    await server!.close();
    look('after the journal is folded into the state file');
    // And every value comes back.
    await start({ rootKey });
    const secrets = await secretsOf(server!);
    expect(secrets['c.4']!.value).toBe(canaries[canaries.length - 2]);
    expect(secrets['stripe.api_key']!.value).toBe(TEST_SECRET_VALUES.stripe);
    expect((await call(server!, { path: '/v1/sync', slug: 'shop', key: created })).status).toBe(200);
  });

  it('makes a key file beside a new state file (0600) and finds it on the next start', async () => {
    await start();
    await admin(server!, 'PUT', '/services/shop/secrets/a', { value: 'x-canary' });
    await server!.close();
    expect(readFileSync(`${statePath}.root-key`, 'utf8')).toMatch(/^# Vane root key/);
    await start();
    expect((await secretsOf(server!))['a']!.value).toBe('x-canary');
  });

  it('a ciphertext moved to another secret or version fails to open, and the start changes nothing', async () => {
    const rootKey = newKey();
    await start({ rootKey });
    await admin(server!, 'PUT', '/services/shop/secrets/a', { value: 'value-a' });
    await admin(server!, 'PUT', '/services/shop/secrets/b', { value: 'value-b' });
    await server!.close();
    server = undefined;
    const state = JSON.parse(readFileSync(statePath, 'utf8')) as {
      services: { shop: { secrets: Record<string, { versions: Array<{ value: unknown }> }> } };
    };
    const secrets = state.services.shop.secrets;
    [secrets['a']!.versions[0]!.value, secrets['b']!.versions[0]!.value] = [
      secrets['b']!.versions[0]!.value,
      secrets['a']!.versions[0]!.value,
    ];
    writeFileSync(statePath, JSON.stringify(state));
    const before = checksum(dir);
    const error = await start({ rootKey }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SealedDataError);
    expect((error as Error).message).toMatch(/service "shop", secret "(a|b)", version 1/);
    expect((error as Error).message).not.toMatch(/value-/);
    expect(checksum(dir)).toBe(before);
  });

  it('a wrong key refuses the start, naming the key id the data needs, and changes no byte', async () => {
    await start({ rootKey: newKey() });
    const needed = (await admin(server!, 'GET', '/sealing')).json<{ root_key: string }>().root_key;
    await admin(server!, 'PUT', '/services/shop/secrets/a', { value: 'journal-only' });
    // Killed, not closed: the journal still holds the change.
    const journalBefore = readFileSync(`${statePath}.journal`);
    await server!.close();
    server = undefined;
    writeFileSync(`${statePath}.journal`, journalBefore);
    const before = checksum(dir);
    const error = await start({ rootKey: newKey() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RootKeyMissingError);
    expect((error as RootKeyMissingError).keyIds).toEqual([needed]);
    expect((error as Error).message).toContain(needed);
    expect((error as Error).message.split('\n')).toHaveLength(1);
    expect(checksum(dir)).toBe(before);
  });

  it('no key at all for a sealed state refuses the start, naming the key id', async () => {
    await start();
    const needed = (await admin(server!, 'GET', '/sealing')).json<{ root_key: string }>().root_key;
    await server!.close();
    server = undefined;
    unlinkSync(`${statePath}.root-key`);
    const before = checksum(dir);
    const error = await start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RootKeyMissingError);
    expect((error as Error).message).toContain(needed);
    expect(checksum(dir)).toBe(before);
    expect(existsSync(`${statePath}.root-key`)).toBe(false);
  });

  it('seals a state written before sealing on its first start with a key, and only then', async () => {
    const legacy = {
      tenant: { overdue_days: 0, ab_addon: true, quarantined_until: null, write_rate_per_minute: 60 },
      services: {
        shop: {
          kind: 'backend',
          keys: ['svs_shop_legacy_secret_key'],
          revoked_keys: [],
          revision: 4,
          configs: {},
          flags: {},
          secrets: {
            'db.password': {
              type: 'text',
              versions: [{ version: 1, value: 'legacy-canary', created_at: '2026-11-01T10:00:00Z' }],
            },
          },
          next_versions: { 'db.password': 2 },
          audit: [{ at: '2026-11-01T10:00:00Z', action: 'secret.set', key: 'db.password', version: 1, actor: 'admin' }],
        },
      },
    };
    writeFileSync(statePath, JSON.stringify(legacy));
    const before = checksum(dir);
    // Without a key: refused, untouched.
    const refused = await start().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RootKeyMissingError);
    expect((refused as Error).message).toMatch(/not sealed yet/);
    expect(checksum(dir)).toBe(before);
    // With one: sealed now; the old key still works, and the old audit joined the chain.
    const rootKey = newKey();
    await start({ rootKey });
    const text = readFileSync(statePath, 'utf8');
    expect(text).not.toContain('legacy-canary');
    expect(text).not.toContain('svs_shop_legacy_secret_key');
    expect(text.startsWith('{\n  "sealing"')).toBe(true);
    expect((await secretsOf(server!, 'shop', 'svs_shop_legacy_secret_key'))['db.password']!.value).toBe(
      'legacy-canary',
    );
    expect(server!.admin.audit('shop')).toEqual([
      { at: '2026-11-01T10:00:00Z', action: 'secret.set', key: 'db.password', version: 1, actor: 'admin' },
    ]);
  });

  it('rotates the root key while 200 writes go on: every secret readable with the new key alone', async () => {
    const result = await rotateUnderWrites(dir, 200);
    expect(result.unreadable).toEqual([]);
    expect(result.rotations).toBe(1);
  }, 30_000); // 200 writes and a rotation, each a real journal write, on a loaded machine

  it('rotates a service data key: new writes and, in the background, the stored state move to it', async () => {
    const rootKey = newKey();
    await start({ rootKey });
    await admin(server!, 'PUT', '/services/shop/secrets/a', { value: 'before' });
    const rotated = await admin(server!, 'POST', '/services/shop/data-key/rotate');
    expect(rotated.json()).toEqual({ data_key: 'dk2' });
    await admin(server!, 'PUT', '/services/shop/secrets/b', { value: 'after' });
    await server!.close();
    server = undefined;
    const state = JSON.parse(readFileSync(statePath, 'utf8')) as {
      services: { shop: { secrets: Record<string, { versions: Array<{ value: { sealed: string } }> }> } };
    };
    const sealedBy = Object.values(state.services.shop.secrets).flatMap((secret) =>
      secret.versions.map((version) => version.value.sealed.split('.')[0]),
    );
    expect(new Set(sealedBy)).toEqual(new Set(['dk2']));
    await start({ rootKey });
    const secrets = await secretsOf(server!);
    expect([secrets['a']!.value, secrets['b']!.value]).toEqual(['before', 'after']);
  });
});
