import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_KEYS, testSeed, until } from '@vane/server/testing';
import { PROCESS_TEST_MS, PROCESS_WAIT_MS } from '@vane/test-harness';
import { ClientSwarm, type SwarmReport } from './support/client-swarm.js';
import { fleetRequest, putConfig, startFleet, streamsOn, tearDownFleet, type Fleet } from './support/fleet.js';
import { describeWithNginx } from './support/nginx.js';
import { describeWithPostgres, startPostgres, type TestPostgres } from './support/postgres.js';

// A rolling restart as a platform does one: three `vane-server` processes on one PostgreSQL behind nginx,
// 3,000 real `VaneClient`s streaming through it (from child processes: one process cannot hold them), and
// each replica in turn sent SIGTERM, waited for until it exited and until its successor on the same port is
// ready. No app may see an error or fall back to polling; every client must reach the revision of a write
// made after; and the rebalancer, fed by the fleet view, must even the streams out within 60 s.

const CLIENTS = 3000;
const SWARM_PROCESSES = 3;
/** The server's defaults (`vane-server`): a replica exits within window + timeout of SIGTERM. */
const DRAIN_WINDOW_MS = 10_000;
const DRAIN_TIMEOUT_MS = 10_000;
/** Every wait below is on an event; these only end a hung test on a loaded 2-core machine. */
const CLIENTS_UP_MS = 240_000;
const CATCH_UP_MS = 60_000;
const BALANCE_MS = 60_000;
const BALANCE_TOLERANCE = 0.15;
const TEST_MS = 900_000;

describeWithPostgres('a rolling restart of a fleet', () => {
  describeWithNginx('three vane-server replicas behind nginx, 3,000 VaneClients', () => {
    let pg: TestPostgres;
    let dir: string;
    let fleet: Fleet | undefined;
    let swarm: ClientSwarm | undefined;

    beforeAll(async () => {
      pg = await startPostgres();
      dir = await mkdtemp(join(tmpdir(), 'vane-rolling-'));
    }, PROCESS_TEST_MS);
    afterAll(async () => {
      swarm?.kill();
      await tearDownFleet({ fleet, pg, dir });
    }, PROCESS_TEST_MS);

    it(
      `SIGTERM to each replica in turn: 0 errors, 0 clients polling, all ${CLIENTS} on the latest revision, streams within ±15 % of the mean within 60 s`,
      async () => {
        const store = await pg.createDatabase('rolling');
        fleet = await startFleet({ store, seed: testSeed(), dir, env: { VANE_LOG_FORMAT: 'json' } });
        const { replicas, nginx } = fleet;
        const counts = (): Promise<number[]> => Promise.all(replicas.map(streamsOn));
        const startedAt = Date.now();
        swarm = await ClientSwarm.start({
          baseUrl: fleet.baseUrl('shop'),
          apiKey: TEST_KEYS.shopSecret,
          count: CLIENTS,
          processes: SWARM_PROCESSES,
          batch: 25,
          timeoutMs: CLIENTS_UP_MS,
        });
        const live = swarm;
        await until(async () => (await live.report()).connected === CLIENTS, 'every client connected', {
          timeoutMs: CATCH_UP_MS,
          intervalMs: 1000,
        });
        await until(async () => (await counts()).reduce((a, b) => a + b, 0) === CLIENTS, 'every stream open', {
          timeoutMs: CATCH_UP_MS,
          intervalMs: 1000,
        });
        const upMs = Date.now() - startedAt;
        const before = await counts();

        const restarts: string[] = [];
        for (const replica of replicas) {
          const stoppedAt = Date.now();
          const exit = await replica.terminate();
          expect(exit.code).toBe(0);
          const exitedMs = Date.now() - stoppedAt;
          expect(exitedMs).toBeLessThan(DRAIN_WINDOW_MS + DRAIN_TIMEOUT_MS + PROCESS_WAIT_MS);
          await replica.restart();
          await until(
            async () => (await fleetRequest(replica.url, { path: '/readyz' })).status === 200,
            `replica ${replica.name} ready again`,
            { timeoutMs: PROCESS_WAIT_MS, intervalMs: 100 },
          );
          restarts.push(`${replica.name}: exit ${exitedMs} ms, ready ${Date.now() - stoppedAt} ms after SIGTERM`);
        }
        const lastReadyAt = Date.now();
        const afterRestarts = await counts();

        // A write after the restarts: every client must reach its revision, through whichever replica it is on.
        const written = await putConfig(nginx.url, 'shop', 'db.host', 'after-the-rolling-restart');
        expect(written.status).toBe(200);
        const { revision } = JSON.parse(written.text) as { revision: number };
        let report: SwarmReport | undefined;
        await until(
          async () => {
            report = await live.report();
            return report.revisions[String(revision)] === CLIENTS;
          },
          `every client on revision ${revision}`,
          { timeoutMs: CATCH_UP_MS, intervalMs: 1000 },
        );
        const latestMs = Date.now() - lastReadyAt;

        // The rebalancer's work: poll until every replica is within the tolerance of the mean, 60 s at most.
        let balanced: number[] = [];
        let balancedMs = -1;
        const mean = CLIENTS / replicas.length;
        const within = (n: number): boolean => Math.abs(n - mean) <= mean * BALANCE_TOLERANCE;
        try {
          await until(
            async () => {
              balanced = await counts();
              return balanced.reduce((a, b) => a + b, 0) === CLIENTS && balanced.every(within);
            },
            `every replica within ±${BALANCE_TOLERANCE * 100} % of ${mean} streams`,
            { timeoutMs: Math.max(1, BALANCE_MS - (Date.now() - lastReadyAt)), intervalMs: 1000 },
          );
          balancedMs = Date.now() - lastReadyAt;
        } finally {
          // Each replica's rounds since its restart: seconds after the last restart, streams held → shed.
          const rounds = replicas.map((r) =>
            r.proc.lines
              .filter((line) => line.includes('"event":"rebalance"'))
              .map((line) => JSON.parse(line) as { time: string; streams: number; shed: number })
              .map((e) => `${((Date.parse(e.time) - lastReadyAt) / 1000).toFixed(1)}s ${e.streams}→${e.shed}`)
              .join(', '),
          );
          console.log(
            [
              `rolling restart: ${CLIENTS} clients up in ${upMs} ms; streams per replica before ${before.join('/')}`,
              ...restarts,
              `after the last restart ${afterRestarts.join('/')}; every client on the latest revision ${latestMs} ms after`,
              `balanced ${balanced.join('/')} ${balancedMs >= 0 ? `${balancedMs} ms` : 'NOT within 60 s'} after the last restart`,
              ...replicas.map((r, i) => `  ${r.name} rebalanced: ${rounds[i] || 'never'}`),
              `clients: ${report?.warnings ?? '?'} warnings ${JSON.stringify(report?.warningSamples ?? [])}, ` +
                `${report?.disconnects ?? '?'} disconnects`,
            ].join('\n'),
          );
        }

        const final = await live.report();
        expect(final.errors).toEqual([]);
        expect(final.readErrors).toBe(0);
        expect(final.pollingSeen).toBe(0);
        expect(final.polling).toBe(0);
        expect(final.connected).toBe(CLIENTS);
        expect(final.revisions).toEqual({ [String(revision)]: CLIENTS });
        // Restarted replicas load what the others serve: the drift check never saw one differ.
        expect(replicas.flatMap((r) => r.proc.lines.filter((line) => line.includes('"event":"drift"')))).toEqual([]);
      },
      TEST_MS,
    );
  });
});
