import { describeWithPostgres } from '../../../test/support/postgres.js';
import { startVaneServer, type VaneServer } from '../src/index.js';
import { TEST_KEYS, testSeed, until, withTimeout } from '../src/testing/index.js';
import { openStream } from './support/http-client.js';
import { databaseBehindProxy, usePostgresAndTempDir } from './support/postgres-and-temp-dir.js';

// Two replicas and a database on a loaded two-core machine.
jest.setTimeout(60_000);

describeWithPostgres('rebalancing on PostgreSQL: the counts of the replica table, read at the decision', () => {
  const setup = usePostgresAndTempDir('vane-rebalance-');

  it('publishes a change of streams within its delay, decides on the peers’ counts as published now, sheds down to its share', async () => {
    const url = await setup.pg.createDatabase('rebalance');
    const servers: VaneServer[] = [];
    const sql = (await import('postgres')).default(url, { max: 1 });
    const streamsOf = async (id: string): Promise<number | undefined> =>
      (await sql<{ streams: number }[]>`SELECT streams FROM vane_replicas WHERE id = ${id}`)[0]?.streams;
    try {
      const common = {
        store: url,
        seed: testSeed(),
        adminToken: 'fleet-admin-token',
        rootKey: Buffer.alloc(32, 3).toString('base64'),
        rebalance: { intervalMs: 0, tolerance: 0.05, spreadMs: 500, minStreamAgeMs: 0 },
      };
      servers.push(await startVaneServer({ ...common, replicaId: 'a', storeCheckIntervalMs: 200 }));
      servers.push(await startVaneServer({ ...common, replicaId: 'b', storeCheckIntervalMs: 200 }));
      const [a, b] = servers as [VaneServer, VaneServer];
      await until(async () => (await streamsOf('a')) === 0 && (await streamsOf('b')) === 0, 'both rows');
      const onA = await Promise.all(
        Array.from({ length: 8 }, () => openStream(a, { slug: 'shop', key: TEST_KEYS.shopSecret })),
      );
      const onB = await Promise.all(
        Array.from({ length: 2 }, () => openStream(b, { slug: 'shop', key: TEST_KEYS.shopSecret })),
      );
      await Promise.all([...onA, ...onB].map((s) => s.event(1)));
      await until(async () => (await streamsOf('a')) === 8 && (await streamsOf('b')) === 2, 'the counts published');
      // B is below the mean: it never sheds.
      expect(await b.rebalance()).toBe(0);
      expect(await b.rebalance()).toBe(0);
      // A's first look learns the total; the second sheds down to the share: 8 - 5.
      expect(await a.rebalance()).toBe(0);
      expect(await a.rebalance()).toBe(3);
      await until(() => a.stats().streams === 5, 'the shed streams to close');
      // Until they can have landed, A still publishes them as its own: B sees no hole.
      await until(async () => (await streamsOf('a')) === 8, "A's count published");
      expect(await a.rebalance()).toBe(0);
      for (const stream of [...onA, ...onB]) stream.close();
    } finally {
      await Promise.all(servers.map((s) => s.close()));
      await sql.end();
    }
  });

  it('a stream-count exchange PostgreSQL never answers skips that look, within the bound; the next one decides', async () => {
    const { url, proxy } = await databaseBehindProxy(setup.pg, 'rebalance_stalled');
    const skipped: string[] = [];
    let server: VaneServer | undefined;
    try {
      server = await startVaneServer({
        store: url,
        seed: testSeed(),
        adminToken: 'fleet-admin-token',
        rootKey: Buffer.alloc(32, 3).toString('base64'),
        replicaId: 'a',
        rebalance: { intervalMs: 0 },
        logger: {
          info: () => undefined,
          warn: (message, fields) => void (fields?.['event'] === 'rebalance_failed' && skipped.push(message)),
          error: () => undefined,
        },
      });
      proxy.stallWhere((line) => /WITH mine AS/.test(line));
      // Skipped once the statement's bound passed, not held until PostgreSQL answers.
      expect(await withTimeout(server.rebalance(), 'a look at a stalled exchange', { timeoutMs: 10_000 })).toBe(0);
      expect(skipped).toEqual([expect.stringContaining('did not answer exchanging')]);
      proxy.stall(false);
      // The next look exchanges the counts again (a look still waiting would have made it return at once, unlogged).
      expect(await withTimeout(server.rebalance(), 'a look after the stall', { timeoutMs: 10_000 })).toBe(0);
      expect(skipped).toHaveLength(1);
    } finally {
      await server?.close();
      await proxy.close();
    }
  });
});
