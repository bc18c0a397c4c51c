import { FaultProxy } from '@vane/test-harness';
import { Client } from 'pg';
import { describeWithPostgres } from '../../../test/support/postgres.js';
import { startVaneServer, type VaneServer } from '../src/index.js';
import { TEST_KEYS, testSeed, until } from '../src/testing/index.js';
import { admin, call, type Answer } from './support/http-client.js';
import { usePostgresAndTempDir } from './support/postgres-and-temp-dir.js';

// PostgreSQL stopped for 14 s, and a replica behind a proxy that stalls: on a loaded two-core machine.
jest.setTimeout(90_000);

/** The root key of the replica. */
const ROOT_KEY = Buffer.alloc(32, 4).toString('base64');
/** What the issue promises: every write answers within this while PostgreSQL is unreachable, in ms. */
const ANSWER_WITHIN_MS = 3000;

/** A write and how long its answer took. */
interface TimedAnswer {
  readonly key: string;
  readonly answer: Answer;
  readonly ms: number;
}

describeWithPostgres('every write answers in bounded time, with a definite meaning', () => {
  const setup = usePostgresAndTempDir('vane-fleet-deadlines-');

  const replica = (store: string): Promise<VaneServer> => {
    const seed = testSeed();
    seed.tenant!.write_rate_per_minute = 1_000_000;
    return startVaneServer({
      store,
      seed,
      adminToken: 'fleet-admin-token',
      rootKey: ROOT_KEY,
      storeCheckIntervalMs: 200,
    });
  };
  const timed = async (server: VaneServer, kind: 'config' | 'secret', n: number): Promise<TimedAnswer> => {
    const key = `deadline.${kind}.${n}`;
    const started = performance.now();
    const answer =
      kind === 'config'
        ? await admin(server, 'PUT', `/services/shop/configs/${key}`, { value: n })
        : await call(server, {
            method: 'PUT',
            path: `/v1/secrets/${key}`,
            slug: 'shop',
            key: TEST_KEYS.shopSecret,
            body: { value: `v-${n}` },
          });
    return { key, answer, ms: performance.now() - started };
  };
  const served = async (
    server: VaneServer,
  ): Promise<{ configs: Record<string, unknown>; secrets: Record<string, unknown> }> =>
    (await call(server, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret })).json();

  /** Writes config `n` until a write goes through (the store is back): that write. */
  const writeGoesThrough = async (server: VaneServer, n: number): Promise<TimedAnswer> => {
    let after: TimedAnswer | undefined;
    await until(async () => (after = await timed(server, 'config', n)).answer.status === 200, 'a write to go through', {
      timeoutMs: 30_000,
      intervalMs: 200,
    });
    return after!;
  };

  it('PostgreSQL stopped for 14 s: every write is refused (503, Retry-After) within 3 s, and none is applied later', async () => {
    const server = await replica(await setup.pg.createDatabase('stopped'));
    const refused: TimedAnswer[] = [];
    try {
      await setup.pg.pause();
      const until14s = performance.now() + 14_000;
      for (let n = 0; performance.now() < until14s; n++) {
        const write = await timed(server, n % 2 === 0 ? 'config' : 'secret', n);
        refused.push(write);
        // Reads go on from memory all along.
        expect((await call(server, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret })).status).toBe(200);
      }
      await setup.pg.resume();
      expect(refused.map((w) => w.answer.status)).toEqual(refused.map(() => 503));
      expect(refused.filter((w) => w.ms >= ANSWER_WITHIN_MS).map((w) => `${w.key}: ${Math.round(w.ms)} ms`)).toEqual(
        [],
      );
      expect(refused.every((w) => w.answer.headers['retry-after'] !== undefined)).toBe(true);
      // Once PostgreSQL is back a write goes through, and none of the refused ones ever shows.
      const after = await writeGoesThrough(server, 9999);
      const state = await served(server);
      expect(state.configs[after.key]).toBe(9999);
      expect(refused.filter((w) => w.key in state.configs || w.key in state.secrets).map((w) => w.key)).toEqual([]);
    } finally {
      await setup.pg.resume().catch(() => undefined);
      await server.close();
    }
  });

  it('a store that stops answering: 503 when nothing was sent, 504 commit_outcome_unknown once it was; reads go on', async () => {
    const direct = await setup.pg.createDatabase('stalled');
    const db = new Client({ connectionString: direct });
    await db.connect();
    const url = new URL(direct);
    const proxy = await FaultProxy.start(Number(url.port), { protocol: 'tcp' });
    url.port = String(proxy.port);
    const server = await replica(url.toString());
    try {
      // The commit's INSERT reaches PostgreSQL with its records (and commits); its answer never comes back.
      proxy.stallWhere((line) => line.includes('deadline.config.1'));
      const unknown = await timed(server, 'config', 1);
      expect(unknown.answer.status).toBe(504);
      expect(unknown.answer.json()).toMatchObject({ error: 'commit_outcome_unknown' });
      expect(unknown.ms).toBeLessThan(ANSWER_WITHIN_MS);
      expect((await served(server)).configs).not.toHaveProperty(unknown.key);
      proxy.stall(false);
      // It did land: the replica applies it as any commit, and the client settles the 504 by reading.
      await until(
        async () => (await served(server)).configs[unknown.key] === 1,
        'the unknown write to show once it landed',
      );

      // Nothing answers at all now: the write is refused before its records are sent, and never lands.
      proxy.stall(true);
      const refused = await timed(server, 'secret', 2);
      expect(refused.answer.status).toBe(503);
      expect(refused.ms).toBeLessThan(ANSWER_WITHIN_MS);
      expect((await call(server, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret })).status).toBe(200);
      proxy.stall(false);
      let after = await writeGoesThrough(server, 3);
      let state = await served(server);
      expect(state.configs[after.key]).toBe(3);
      expect(state.secrets).not.toHaveProperty(refused.key);

      // The commit's statement is delayed on its way and reaches PostgreSQL after the write's deadline: the write
      // was answered 504, and the statement that comes late changes nothing.
      proxy.holdWhere((line) => line.includes('deadline.config.4'));
      const late = await timed(server, 'config', 4);
      expect(late.answer.status).toBe(504);
      expect(late.ms).toBeLessThan(ANSWER_WITHIN_MS);
      const [{ now: releasedAt }] = (await db.query<{ now: Date }>('SELECT now()')).rows as [{ now: Date }];
      proxy.stall(false);
      // The late statement has run once its connection is idle again with it as its last query.
      await until(
        async () =>
          (
            await db.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM pg_stat_activity
               WHERE query LIKE '%INSERT INTO vane_changes%' AND state = 'idle' AND query_start >= $1`,
              [releasedAt],
            )
          ).rows[0]!.n > 0,
        'the late statement to run',
      );
      const landed = await db.query(`SELECT seq FROM vane_changes WHERE record LIKE '%deadline.config.4%'`);
      expect(landed.rows).toEqual([]);
      after = await writeGoesThrough(server, 5);
      state = await served(server);
      expect(state.configs[after.key]).toBe(5);
      expect(state.configs).not.toHaveProperty(late.key);
    } finally {
      proxy.stall(false);
      await server.close();
      await proxy.close();
      await db.end();
    }
  });
});
