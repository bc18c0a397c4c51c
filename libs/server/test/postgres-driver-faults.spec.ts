import { FaultProxy } from '@vane/test-harness';
import { describeWithPostgres } from '../../../test/support/postgres.js';
import { bounded, StatementLateError } from '../src/postgres/bounded-statement.js';
import { connectPostgres, type PostgresSql } from '../src/postgres/postgres-driver.js';
import { until } from '../src/testing/index.js';
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
});
