import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startVaneServer, type VaneServer } from '../src/index.js';
import { admin, call, openStream, type StreamReader } from './support/http-client.js';
import { TEST_KEYS, testSeed } from '../src/testing/index.js';

// `__proto__` is a valid key (PROTOCOL §4: [A-Za-z0-9._-]{1,256}). Written into a plain object it would hit
// the prototype setter and vanish; every route and the stream must carry it as an ordinary member.
const KEY = '__proto__';
const own = (object: unknown, key: string): boolean =>
  typeof object === 'object' && object !== null && Object.prototype.hasOwnProperty.call(object, key);
/** JSON.parse keeps `__proto__` as an own member; an object literal would set the prototype instead. */
const json = <T>(text: string): T => JSON.parse(text) as T;

interface Patch {
  revision: number;
  configs?: Record<string, unknown>;
  flags?: Record<string, { is_active: boolean }>;
  secrets?: Record<string, { value: string; version: number }>;
  deleted?: { configs?: string[]; flags?: string[]; secrets?: string[] };
}

describe('a key named __proto__', () => {
  let dir: string;
  let server: VaneServer;
  let stream: StreamReader;
  const patch = async (n: number): Promise<Patch> => json<Patch>((await stream.event(n)).data);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vane-proto-'));
    server = await startVaneServer({ seed: testSeed(), statePath: join(dir, 'state.json') });
    stream = await openStream(server, { slug: 'shop', key: TEST_KEYS.shopSecret });
    await stream.event(1); // resync
  });
  afterEach(async () => {
    stream.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is set, served, streamed, evaluated, persisted and deleted like any other key', async () => {
    const value = '[{"__proto__": {"polluted": true}}, 1]';
    const config = await call(server, {
      method: 'PUT',
      path: `/admin/v1/services/shop/configs/${KEY}`,
      admin: true,
      body: `{"value": ${value}}`,
    });
    expect(config.status).toBe(200);
    const configPatch = await patch(2);
    expect(own(configPatch.configs, KEY)).toBe(true);
    expect(JSON.stringify(configPatch.configs![KEY])).toBe(JSON.stringify(json(value)));

    expect((await admin(server, 'PUT', `/services/shop/flags/${KEY}`, { is_enabled: true })).status).toBe(200);
    expect(own((await patch(3)).flags, KEY)).toBe(true);
    expect((await admin(server, 'PUT', `/services/shop/secrets/${KEY}`, { value: 'first' })).status).toBe(200);
    expect((await patch(4)).secrets).toMatchObject(json<object>(`{"${KEY}": {"value": "first", "version": 1}}`));
    const write = await call(server, {
      method: 'PUT',
      path: `/v1/secrets/${KEY}`,
      slug: 'shop',
      key: TEST_KEYS.shopSecret,
      body: { value: 'second' },
    });
    expect(write.json()).toEqual(json(`{"key": "${KEY}", "type": "text", "version": 2}`));
    expect(own((await patch(5)).secrets, KEY)).toBe(true);

    const snapshot = json<Required<Patch>>(
      (await call(server, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret })).text,
    );
    expect([own(snapshot.configs, KEY), own(snapshot.flags, KEY), own(snapshot.secrets, KEY)]).toEqual([
      true,
      true,
      true,
    ]);
    expect(snapshot.secrets[KEY]).toEqual({ type: 'text', value: 'second', version: 2 });
    expect(snapshot.flags[KEY]!.is_active).toBe(true);

    const evaluated = await call(server, {
      method: 'POST',
      path: '/v1/flags/evaluate-ab',
      slug: 'shop',
      key: TEST_KEYS.shopSecret,
      body: `{"keys": ["${KEY}", "beta"], "user_id": "u-1", "attributes": {"${KEY}": "x"}}`,
    });
    expect(evaluated.status).toBe(200);
    expect(evaluated.text).toBe(`{"results":{"${KEY}":true,"beta":false}}`);

    const audit = await admin(server, 'GET', '/services/shop/audit');
    expect(audit.json<{ entries: Array<{ key: string }> }>().entries.map((e) => e.key)).toEqual([KEY, KEY]);

    // Through the journal and the state file, and back.
    await server.close();
    server = await startVaneServer({ statePath: join(dir, 'state.json') });
    const restored = json<Required<Patch>>(
      (await call(server, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret })).text,
    );
    expect(JSON.stringify(restored.configs[KEY])).toBe(JSON.stringify(json(value)));
    expect([own(restored.flags, KEY), restored.secrets[KEY]?.version]).toEqual([true, 2]);

    stream = await openStream(server, { slug: 'shop', key: TEST_KEYS.shopSecret });
    await stream.event(1);
    expect((await admin(server, 'DELETE', `/services/shop/configs/${KEY}`)).status).toBe(200);
    expect((await admin(server, 'DELETE', `/services/shop/flags/${KEY}`)).status).toBe(200);
    expect((await admin(server, 'DELETE', `/services/shop/secrets/${KEY}/versions/2`)).status).toBe(200);
    expect((await admin(server, 'DELETE', `/services/shop/secrets/${KEY}`)).status).toBe(200);
    expect((await patch(2)).deleted).toEqual({ configs: [KEY] });
    expect((await patch(3)).deleted).toEqual({ flags: [KEY] });
    expect((await patch(4)).secrets![KEY]).toMatchObject({ value: 'first', version: 1 });
    expect((await patch(5)).deleted).toEqual({ secrets: [KEY] });
  });

  it('is read from a seed file as an ordinary key', async () => {
    const seedPath = join(dir, 'proto.seed.json');
    writeFileSync(
      seedPath,
      `{"services": {"shop": {"keys": ["${TEST_KEYS.shopSecret}"], "configs": {"${KEY}": 1},
        "flags": {"${KEY}": {"is_enabled": false}}, "secrets": {"${KEY}": {"value": "s"}}}}}`,
    );
    const seeded = await startVaneServer({ seed: seedPath });
    try {
      const snapshot = (await call(seeded, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret })).text;
      expect(snapshot).toContain(`"configs":{"${KEY}":1}`);
      expect(snapshot).toContain(`"secrets":{"${KEY}":{"type":"text","value":"s","version":1}}`);
      expect(snapshot).toContain(`"flags":{"${KEY}":{"is_enabled":false`);
    } finally {
      await seeded.close();
    }
  });
});
