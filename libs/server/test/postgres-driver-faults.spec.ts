import { FaultProxy } from '@vane/test-harness';
import { describeWithPostgres } from '../../../test/support/postgres.js';
import { bounded, StatementLateError } from '../src/postgres/bounded-statement.js';
import { connectPostgres, type PostgresSql } from '../src/postgres/postgres-driver.js';
import { startVaneServer, type VaneServer } from '../src/index.js';
import { Keyring } from '../src/sealing/keyring.js';
import { TEST_KEYS, testSeed, until } from '../src/testing/index.js';
import { admin, call } from './support/http-client.js';
import { usePostgresAndTempDir } from './support/postgres-and-temp-dir.js';

// The connections of a replica's pool lost at the worst moment (fleet.slow-spec once saw a replica die of a bare
// `read ECONNRESET` while PostgreSQL shut down): a connection reset while it fetches its types, and a statement's
// cancel request whose own connection is reset. Each is made to happen, not waited for, through a TCP proxy that
// stalls and resets on the statement it sees; no rejection may be left unhandled.
jest.setTimeout(60_000);

/** The statement postgres.js sends first on each new connection unless `fetch_types` is off. */
const TYPES_QUERY = /pg_catalog\.pg_type/;

describeWithPostgres("the PostgreSQL driver's connections lost mid-statement leave no rejection unhandled", () => {
  const setup = usePostgresAndTempDir('vane-driver-faults-');
  let proxy: FaultProxy | undefined;
  let sql: PostgresSql | undefined;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);

  /** A pool of the store's driver settings on a fresh database, through a TCP proxy: no connection made yet. */
  const openPool = async (database: string): Promise<PostgresSql> => {
    const url = new URL(await setup.pg.createDatabase(database));
    proxy = await FaultProxy.start(Number(url.port), { protocol: 'tcp' });
    url.port = String(proxy.port);
    sql = await connectPostgres(url.toString(), { max: 1, connectTimeoutSeconds: 2 });
    return sql;
  };

  /**
   * The pool answers a statement again: every rejection of what was lost before has been settled by then
   * (Node reports an unhandled one after the turn it was made in, long before a round trip to PostgreSQL).
   */
  const answersAgain = async (pool: PostgresSql): Promise<void> => {
    await until(
      async () => {
        try {
          const [row] = await pool<{ one: number }[]>`SELECT 1 AS one`;
          return row?.one === 1;
        } catch {
          return false;
        }
      },
      'the pool to answer again',
      { timeoutMs: 20_000, intervalMs: 100 },
    );
  };

  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(async () => {
    process.off('unhandledRejection', onUnhandled);
    await sql?.end({ timeout: 1 }).catch(() => undefined);
    await proxy?.close();
    sql = undefined;
    proxy = undefined;
  });

  it('a new connection reset while it fetches its types: the statement waiting for it settles, nothing else fails', async () => {
    const pool = await openPool('reset_types');
    // The first statement of a new connection (the driver's own types query, when it asks for types) gets no answer.
    proxy!.stallWhere((line) => TYPES_QUERY.test(line) || /SELECT 1 AS one/.test(line));
    const first = pool<{ one: number }[]>`SELECT 1 AS one`;
    const settled = first.then(
      () => 'answered',
      () => 'failed',
    );
    await until(
      () => proxy!.reset((line) => TYPES_QUERY.test(line) || /SELECT 1 AS one/.test(line)) > 0,
      'the first statement of the new connection',
      { timeoutMs: 10_000, intervalMs: 5 },
    );
    proxy!.stall(false);
    expect(['answered', 'failed']).toContain(await settled);
    await answersAgain(pool);
    expect(unhandled).toEqual([]);
  });

  it("a statement given up at its bound: the cancel request's own connection reset is not an unhandled rejection", async () => {
    const pool = await openPool('reset_cancel');
    await answersAgain(pool);
    // Every byte from PostgreSQL stops from the statement on: it is sent (active) and no answer comes. What any
    // other connection sends (the cancel request) is held back: PostgreSQL never sees it.
    proxy!.stallWhere((line) => /pg_sleep/.test(line));
    proxy!.holdWhere((line) => !/pg_sleep/.test(line));
    const late = bounded(pool`SELECT pg_sleep(10)`, 'a statement that outlives its bound', { ms: 300 });
    await expect(late).rejects.toBeInstanceOf(StatementLateError);
    // The bound cancelled it: postgres.js opens a connection of its own for the cancel request. Reset both.
    await until(() => proxy!.openConnections >= 2, 'the cancel request to connect', { timeoutMs: 10_000 });
    expect(proxy!.reset()).toBeGreaterThanOrEqual(2);
    proxy!.stall(false);
    await answersAgain(pool);
    expect(unhandled).toEqual([]);
  });

  it('a server whose every connection is killed idle, then PostgreSQL stopped under writes, goes on', async () => {
    const url = await setup.pg.createDatabase('server_connections');
    const role = new URL(url).username;
    const seed = testSeed();
    seed.tenant!.write_rate_per_minute = 1_000_000;
    const rootKey = Keyring.generate().text;
    const options = { store: url, seed, rootKey, adminToken: 'fleet-admin-token', storeCheckIntervalMs: 200 };
    const [a, b] = [await startVaneServer(options), await startVaneServer(options)];
    const servers: VaneServer[] = [a, b];
    let n = 0;
    const write = (server: VaneServer) =>
      admin(server, 'PUT', `/services/shop/configs/driver.k${++n}`, { value: n }).then((answer) => answer.status);
    /** `b` serves what was just written through `a`: a's commit rang b's LISTEN, or b's check read it. */
    const propagates = async (): Promise<void> => {
      await until(async () => (await write(a)) === 200, 'a write through a to go through', {
        timeoutMs: 30_000,
        intervalMs: 100,
      });
      const key = `driver.k${n}`;
      await until(
        async () => {
          const answer = await call(b, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret });
          return answer.status === 200 && key in answer.json<{ configs: Record<string, unknown> }>().configs;
        },
        `b to serve ${key}`,
        { timeoutMs: 30_000, intervalMs: 50 },
      );
    };
    try {
      await propagates();
      // Every backend of the role, idle: the pools' connections and each server's LISTEN connection.
      const killed = await setup.pg.query<{ killed: boolean }>(
        'SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE usename = $1',
        [role],
      );
      expect(killed.length).toBeGreaterThanOrEqual(4);
      await propagates();
      // PostgreSQL stopped while writes are in flight on both, and started again.
      const during = [write(a), write(b), write(a)];
      await setup.pg.pause();
      during.push(write(a), write(b));
      await setup.pg.resume();
      for (const status of await Promise.all(during)) expect([200, 503, 504]).toContain(status);
      await propagates();
      expect(unhandled).toEqual([]);
    } finally {
      for (const server of servers) await server.close();
    }
  });
});
