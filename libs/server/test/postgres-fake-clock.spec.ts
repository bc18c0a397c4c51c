import { FaultProxy } from '@vane/test-harness';
import { Client } from 'pg';
import { describeWithPostgres } from '../../../test/support/postgres.js';
import { ManualClock } from '../src/domain/clock.js';
import { startVaneServer, type VaneServer } from '../src/index.js';
import { parseServerData } from '../src/seed/seed-parser.js';
import { Keyring } from '../src/sealing/keyring.js';
import { SealingCodec } from '../src/sealing/sealing-codec.js';
import { HistoryPruner } from '../src/postgres/history-pruner.js';
import { connectPostgres } from '../src/postgres/postgres-driver.js';
import { migrate } from '../src/postgres/postgres-schema.js';
import { UNREADABLE_AFTER_CHECKS } from '../src/postgres/store-check.js';
import { WRITE_DEADLINE_MS } from '../src/postgres/commit-pipeline.js';
import { testSeed, until } from '../src/testing/index.js';
import { admin, call, type Answer } from './support/http-client.js';
import { usePostgresAndTempDir } from './support/postgres-and-temp-dir.js';

// The parts of the PostgreSQL change log on real PostgreSQL, their time on a fake clock: the check's cadence
// and the write deadline are counted, not waited for.
jest.setTimeout(60_000);

const ROOT_KEY = Buffer.alloc(32, 3).toString('base64');
const CHECK_MS = 1000;

describeWithPostgres('the PostgreSQL change log on a fake clock', () => {
  const setup = usePostgresAndTempDir('vane-fake-clock-');

  const replica = (store: string, clock: ManualClock, errors: string[] = []): Promise<VaneServer> =>
    startVaneServer({
      store,
      seed: testSeed(),
      adminToken: 'fleet-admin-token',
      rootKey: ROOT_KEY,
      storeClock: clock,
      storeCheckIntervalMs: CHECK_MS,
      logger: { info: () => undefined, warn: () => undefined, error: (m) => errors.push(m) },
    });

  it(`store check: not ready after exactly ${UNREADABLE_AFTER_CHECKS} refused checks, ready at the first that reads`, async () => {
    const url = await setup.pg.createDatabase('check_cadence');
    const owner = new Client({ connectionString: url });
    await owner.connect();
    const clock = new ManualClock();
    const errors: string[] = [];
    const server = await replica(url, clock, errors);
    const failed = (): number => errors.filter((e) => e.startsWith('the store check failed')).length;
    /** One check: the fake clock reaches it; resolves once it logged (refused) or once readiness says so. */
    const check = async (refused: boolean): Promise<void> => {
      const before = failed();
      clock.advance(CHECK_MS);
      if (refused) await until(() => failed() === before + 1, 'the check to fail');
    };
    try {
      await owner.query('REVOKE SELECT ON vane_changes FROM CURRENT_USER');
      for (let n = 1; n < UNREADABLE_AFTER_CHECKS; n++) {
        await check(true);
        expect((await call(server, { path: '/readyz' })).status).toBe(200);
      }
      await check(true);
      const unready = await call(server, { path: '/readyz' });
      expect(unready.status).toBe(503);
      expect(unready.text).toContain(
        `permission denied for table vane_changes (${UNREADABLE_AFTER_CHECKS} checks in a row)`,
      );
      await owner.query('GRANT SELECT ON vane_changes TO CURRENT_USER');
      await check(false);
      await until(async () => (await call(server, { path: '/readyz' })).status === 200, 'ready at the next check');
    } finally {
      await server.close();
      await owner.end();
    }
  });

  it(`commit pipeline: a write the store does not take is refused at ${WRITE_DEADLINE_MS} ms of the clock, never sent`, async () => {
    const direct = await setup.pg.createDatabase('deadline');
    const url = new URL(direct);
    const proxy = await FaultProxy.start(Number(url.port), { protocol: 'tcp' });
    url.port = String(proxy.port);
    const clock = new ManualClock();
    const server = await replica(url.toString(), clock);
    const db = new Client({ connectionString: direct });
    await db.connect();
    try {
      proxy.stall(true);
      let answer: Answer | undefined;
      const writing = admin(server, 'PUT', '/services/shop/configs/late.write', { value: 1 }).then((a) => (answer = a));
      // The clock moves in steps until the write is answered: its deadline is counted on it.
      let advanced = 0;
      await until(async () => {
        if (answer !== undefined) return true;
        clock.advance(100);
        advanced += 100;
        await new Promise<void>((resolve) => setImmediate(resolve));
        return answer !== undefined;
      }, 'the write to be answered');
      await writing;
      expect(answer!.status).toBe(503);
      expect(advanced).toBeGreaterThanOrEqual(WRITE_DEADLINE_MS);
      proxy.stall(false);
      expect((await admin(server, 'PUT', '/services/shop/configs/next.write', { value: 2 })).status).toBe(200);
      const rows = await db.query(`SELECT seq FROM vane_changes WHERE record LIKE '%late.write%'`);
      expect(rows.rows).toEqual([]);
    } finally {
      proxy.stall(false);
      await server.close();
      await proxy.close();
      await db.end();
    }
  });

  it('history pruner: a snapshot at the head drops what replay no longer needs; one behind the head writes nothing', async () => {
    const url = await setup.pg.createDatabase('pruner');
    const sql = await connectPostgres(url, { max: 1, connectTimeoutSeconds: 5 });
    try {
      await migrate(sql);
      const codec = new SealingCodec(new Keyring([Keyring.generate().key]));
      const data = parseServerData(testSeed(), 'test seed');
      const clock = new ManualClock(Date.parse('2026-11-29T08:00:00Z'));
      const errors: string[] = [];
      const logger = { info: () => undefined, warn: () => undefined, error: (m: string) => errors.push(m) };
      await sql`INSERT INTO vane_snapshots (seq, data, committed) VALUES (0, '{}', '{}')`;
      // Ten changes of 100 bytes each, an hour and more apart on the fake clock.
      for (let seq = 1; seq <= 10; seq++) {
        await sql`INSERT INTO vane_changes (seq, slug, revision, record, change_set, committed_at_ms, bytes)
          VALUES (${seq}, 'shop', ${seq + 1}, ${'{"type":"x"}'}, NULL, ${clock.now() - (10 - seq) * 3_600_000}, 100)`;
      }
      const pruner = new HistoryPruner({
        sql,
        codec,
        logger,
        now: () => clock.now(),
        historyAgeMs: 2.5 * 3_600_000,
        historyBytes: 450,
        snapshotEvery: 5,
        clock,
      });
      expect([pruner.due(4), pruner.due(5)]).toEqual([false, true]);
      const state = { data, committed: new Map([['shop', clock.now()]]), seq: 10 };
      // Behind the head (another replica committed 11): nothing written.
      expect(await pruner.snapshot({ ...state, seq: 9 })).toBe(true);
      expect((await sql`SELECT seq FROM vane_snapshots ORDER BY seq`).map((r) => Number(r['seq']))).toEqual([0]);
      // At the head: the snapshot at 10; replay keeps the changes within both bounds (2.5 hours: 8 on; 450 bytes:
      // 7 on), from 8: the snapshot before it is 0, so nothing is dropped yet. At 14, the last 450 bytes are 11 on:
      // the snapshot before them (10) stays, the one before it (0) and the changes up to 10 go.
      expect(await pruner.snapshot(state)).toBe(true);
      expect((await sql`SELECT seq FROM vane_snapshots ORDER BY seq`).map((r) => Number(r['seq']))).toEqual([0, 10]);
      for (let seq = 11; seq <= 14; seq++) {
        await sql`INSERT INTO vane_changes (seq, slug, revision, record, change_set, committed_at_ms, bytes)
          VALUES (${seq}, 'shop', ${seq + 1}, ${'{"type":"x"}'}, NULL, ${clock.now()}, 100)`;
      }
      expect(await pruner.snapshot({ ...state, seq: 14 })).toBe(true);
      expect((await sql`SELECT seq FROM vane_snapshots ORDER BY seq`).map((r) => Number(r['seq']))).toEqual([10, 14]);
      expect((await sql`SELECT min(seq) AS seq FROM vane_changes`)[0]!['seq']).toBe(11);
      expect(errors).toEqual([]);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });
});
