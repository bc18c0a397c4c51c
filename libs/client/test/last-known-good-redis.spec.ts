import { startVaneServer, type VaneServer } from '@vane/server';
import { createClient } from 'redis';
import { RedisBackupStore, VaneClient, type VaneClientOptions } from '../src/index.js';
import { MemoryLogger } from './helpers/fake-transport.js';

import { describeWithRedis, startRedis, type TestRedis } from './helpers/redis-server.js';
import { SHOP_SK, seed } from './helpers/seed.js';
import { until, waitForStatus } from '@vane/server/testing';
import { FaultProxy, PROCESS_TEST_MS } from '@vane/test-harness';

const SECRET = 'rk_test_TOPSECRET';

function connect(url: string) {
  return createClient({ url }).connect();
}

describeWithRedis('last-known-good in Redis, shared by a fleet (real redis-server)', () => {
  let redis: TestRedis;
  let server: VaneServer;
  let proxy: FaultProxy;
  let podA: Awaited<ReturnType<typeof connect>>;
  let podB: Awaited<ReturnType<typeof connect>>;
  const logger = new MemoryLogger();

  beforeAll(async () => {
    redis = await startRedis();
    podA = await connect(redis.url);
    podB = await connect(redis.url);
    server = await startVaneServer({ seed: seed(), port: 0 });
    proxy = await FaultProxy.start(server.port);
  }, PROCESS_TEST_MS);

  afterAll(async () => {
    podA?.destroy();
    podB?.destroy();
    await proxy?.close();
    await server?.close();
    await redis?.stop();
  }, PROCESS_TEST_MS);

  const key = (): string => `vane:last-known-good:${proxy.baseUrl('shop')}`;
  const options = (client: Awaited<ReturnType<typeof connect>>): VaneClientOptions => ({
    baseUrl: proxy.baseUrl('shop'),
    apiKey: SHOP_SK,
    logger,
    backoffMinMs: 20,
    backoffMaxMs: 40,
    lastKnownGood: { store: new RedisBackupStore({ client }) },
  });

  it('one pod saves, a new pod starts from it during an outage and comes back fresh', async () => {
    const a = await VaneClient.create(options(podA));
    try {
      await waitForStatus(a, (s) => s.connected, { what: 'pod A streaming' });
      // A's first save, then a patch: the Redis value follows the revisions.
      let saved = 0;
      const revisionInRedis = async (): Promise<number> => {
        const raw = await podB.get(key());
        return raw === null ? -1 : (JSON.parse(raw) as { snapshot: { revision: number } }).snapshot.revision;
      };
      server.admin.setConfig('shop', 'db.host', 'db-2.internal');
      await until(async () => (saved = await revisionInRedis()) === server.revision('shop'), 'the save in Redis', {
        timeoutMs: 3000,
      });
      expect(saved).toBe(server.revision('shop'));

      const raw = (await podB.get(key()))!;
      expect(raw).not.toContain(SECRET);
      expect(raw).not.toContain(SHOP_SK);
      expect(raw).not.toContain(SHOP_SK.slice(4));

      // The outage: every connection to the service is dropped. A keeps serving; B starts from A's backup.
      proxy.onRequest(() => 'reset');
      proxy.reset();
      const b = await VaneClient.create(options(podB));
      try {
        expect(b.stale).toMatchObject({ reason: 'transport', revision: saved });
        expect(b.config('db.host')).toBe('db-2.internal');
        expect(b.secret('stripe.api_key')).toBe(SECRET);
        proxy.onRequest(undefined);
        await waitForStatus(b, (s) => s.stale === undefined, { what: 'pod B fresh again', timeoutMs: 5000 });
        expect(b.revision).toBe(server.revision('shop'));
      } finally {
        await b.close();
      }
    } finally {
      await a.close();
    }
  });

  it('a Redis that is down: a start with the service up is unaffected, the failed saves are one warning', async () => {
    const dead = createClient({ url: `redis://127.0.0.1:${redis.port}`, disableOfflineQueue: true });
    // Never connected: every command is refused at once.
    const own = new MemoryLogger();
    const client = await VaneClient.create({ ...options(dead as never), logger: own });
    await client.close();
    expect(own.text('warn').match(/cannot save/g)).toHaveLength(1);
    expect(own.text('warn')).toMatch(/last-known-good: cannot save revision \d+ to redis key vane:last-known-good:/);
  });
});
