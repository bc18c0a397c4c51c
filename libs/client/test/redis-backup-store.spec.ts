import { createClient, RESP_TYPES } from 'redis';
import { parseSnapshot } from '@vane/client-core';
import { decodeBackup, encodeBackup, type BackupIdentity } from '../src/last-known-good/backup-document.js';
import { deriveBackupKey } from '../src/last-known-good/backup-key.js';
import { RedisBackupStore } from '../src/index.js';
import { InvalidArgumentError } from '../src/errors.js';
import { describeWithRedis, startRedis, type TestRedis } from './helpers/redis-server.js';
import { PROCESS_TEST_MS } from '@vane/test-harness';

const SHOP = 'http://shop.localhost:4400';
const SECRET = 'rk_live_REDIS_SPEC_SECRET';
const API_KEY = 'svs_redis_spec_key_00000000001';

function connect(url: string) {
  return createClient({ url }).connect();
}

describeWithRedis('RedisBackupStore (real redis-server)', () => {
  let redis: TestRedis;
  let a: Awaited<ReturnType<typeof connect>>;
  let b: Awaited<ReturnType<typeof connect>>;

  beforeAll(async () => {
    redis = await startRedis();
    a = await connect(redis.url);
    b = await connect(redis.url);
  }, PROCESS_TEST_MS);

  afterAll(async () => {
    a?.destroy();
    b?.destroy();
    await redis?.stop();
  }, PROCESS_TEST_MS);

  beforeEach(async () => {
    await a.flushAll();
  });

  it('keeps one key per service under the prefix; two clients share it', async () => {
    const writer = new RedisBackupStore({ client: a });
    const reader = new RedisBackupStore({ client: b });
    expect(await reader.read(SHOP)).toBeNull();
    await writer.write(SHOP, '{"doc":1}');
    await writer.write('http://web.localhost:4400', '{"doc":2}');
    expect(await reader.read(SHOP)).toBe('{"doc":1}');
    expect(await a.keys('*')).toEqual(
      expect.arrayContaining([`vane:last-known-good:${SHOP}`, 'vane:last-known-good:http://web.localhost:4400']),
    );
    expect(reader.describe(SHOP)).toBe(`redis key vane:last-known-good:${SHOP}`);
  });

  it('honours keyPrefix', async () => {
    await new RedisBackupStore({ client: a, keyPrefix: 'app1:' }).write(SHOP, 'x');
    expect(await a.get(`app1:${SHOP}`)).toBe('x');
    expect(await new RedisBackupStore({ client: b }).read(SHOP)).toBeNull();
  });

  it('the value in Redis holds no plaintext secret and no key, and opens for another instance with the same key', async () => {
    const identity: BackupIdentity = { serviceId: SHOP, key: deriveBackupKey(API_KEY, 'api-key', SHOP) };
    const snapshot = parseSnapshot({
      service: { slug: 'shop', kind: 'backend' },
      revision: 3,
      configs: { 'db.host': 'db' },
      secrets: { 'stripe.api_key': { type: 'text', value: SECRET, version: 1 } },
    });
    await new RedisBackupStore({ client: a }).write(SHOP, encodeBackup(snapshot, Date.now(), identity));
    const raw = (await b.get(`vane:last-known-good:${SHOP}`))!;
    expect(raw).not.toContain(SECRET);
    expect(raw).not.toContain(API_KEY);
    expect(raw).not.toContain(API_KEY.slice(4));
    const other: BackupIdentity = { serviceId: SHOP, key: deriveBackupKey(API_KEY, 'api-key', SHOP) };
    const back = decodeBackup((await new RedisBackupStore({ client: b }).read(SHOP))!, other);
    expect(back.snapshot.secrets.get('stripe.api_key')?.value).toBe(SECRET);
  });

  it('reads a client set to answer buffers', async () => {
    await a.set(`vane:last-known-good:${SHOP}`, 'bytes');
    const buffers = a.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
    expect(await new RedisBackupStore({ client: buffers }).read(SHOP)).toBe('bytes');
  });

  it('refuses something that is not a Redis client', () => {
    expect(() => new RedisBackupStore({ client: {} as never })).toThrow(InvalidArgumentError);
  });
});
