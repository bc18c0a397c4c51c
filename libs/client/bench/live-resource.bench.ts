/**
 * A database password rotation under load, on a real PostgreSQL (a cluster
 * of its own, started with initdb on a free port) and the `pg` driver:
 *
 * - queries that failed during the rotations (the claim is zero);
 * - the time from the secret write (`client.setSecret`) to the first query
 *   answered by the new pool, against two baselines measured in the same
 *   run: the time from the same write to the client's update event (how
 *   long Vane takes to deliver the new value), and a bare `new Pool()` plus
 *   its first query with the same password (what a rebuild must cost at the
 *   least).
 *
 * Run: `npm run bench -w @vane/client` (prints a Markdown report). Skipped,
 * with one line, when PostgreSQL is not installed.
 */
import { performance } from 'node:perf_hooks';
import { startVaneServer } from '@vane/server';
import { VaneClient, type LiveResourceDefinition } from '@vane/client';
import { Pool } from 'pg';
import {
  connectionsBecome,
  createRole,
  pgSeed,
  PG_POOL_MAX,
  PG_ROLE,
  PG_SERVICE_KEY,
} from '../../../test/support/pg-rotation.js';
import { findPostgresBin, startPostgres } from '../../../test/support/postgres.js';

const ROTATIONS = 30;
const CONCURRENCY = 2 * PG_POOL_MAX;
const silent = { warn() {}, error() {} };

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function main(): Promise<void> {
  if (findPostgresBin() === undefined) {
    console.log('live-resource bench: PostgreSQL is not installed, skipped (`sudo apt-get install -y postgresql`)');
    return;
  }
  const pg = await startPostgres();
  await createRole(pg);
  const server = await startVaneServer({ seed: pgSeed(pg), port: 0 });
  const client = await VaneClient.create({ baseUrl: server.baseUrl('orders'), apiKey: PG_SERVICE_KEY, logger: silent });
  const definition: LiveResourceDefinition<Pool, 'db.host' | 'db.port' | 'db.user' | 'db.name', 'db.password'> = {
    configs: ['db.host', 'db.port', 'db.user', 'db.name'],
    secrets: ['db.password'],
    create: ({ configs, secrets }) => {
      const pool = new Pool({
        host: String(configs['db.host']),
        port: Number(configs['db.port']),
        user: String(configs['db.user']),
        database: String(configs['db.name']),
        password: secrets['db.password'],
        max: PG_POOL_MAX,
      });
      pool.on('error', () => undefined);
      return pool;
    },
    ready: (pool) => pool.query('SELECT 1'),
    dispose: (pool) => pool.end(),
  };
  const pool = await client.liveResource(definition);

  // The load: CONCURRENCY loops of one query after another, each borrowing the pool in service.
  let stop = false;
  let ok = 0;
  let failed = 0;
  const errors: string[] = [];
  let watching: { old: Pool; done: (at: number) => void } | undefined;
  const loop = async (): Promise<void> => {
    while (!stop) {
      try {
        await pool.use(async (p) => {
          await p.query('SELECT 1');
          if (watching !== undefined && p !== watching.old) watching.done(performance.now());
        });
        ok += 1;
      } catch (err) {
        failed += 1;
        if (errors.length < 5) errors.push(err instanceof Error ? err.message : String(err));
      }
    }
  };
  const loops = Promise.all(Array.from({ length: CONCURRENCY }, loop));

  const toUpdate: number[] = [];
  const toRebuilt: number[] = [];
  const toFirstQuery: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i <= ROTATIONS; i++) {
    const password = `bench-pw-${i}-${Math.random().toString(36).slice(2)}`;
    // The pool in service has opened (and authenticated) all its connections, and the old pools are
    // gone: once the database has the new password, the pool in service could open no other (the order
    // a single-password rotation imposes: the database first, then Vane).
    while (pool.status.draining > 0 || pool.current.totalCount < PG_POOL_MAX)
      await new Promise((resolve) => setTimeout(resolve, 5));
    await connectionsBecome(pg, PG_POOL_MAX, 30_000);
    await pg.query(`ALTER ROLE ${PG_ROLE} PASSWORD '${password}'`);
    const old = pool.current;
    let writtenAt = 0;
    const update = new Promise<number>((resolve) => {
      const off = client.onUpdate((u) => {
        if (!u.changes.some((c) => c.key === 'db.password')) return;
        off();
        resolve(performance.now());
      });
    });
    const rebuilt = new Promise<number>((resolve) => {
      const off = pool.onEvent((e) => {
        if (e.type !== 'rebuilt') return;
        off();
        resolve(performance.now());
      });
    });
    const firstQuery = new Promise<number>((resolve) => {
      watching = { old, done: resolve };
    });
    writtenAt = performance.now();
    await client.setSecret('db.password', password);
    const [u, r, q] = await Promise.all([update, rebuilt, firstQuery]);
    watching = undefined;
    // Baseline: a bare pool and its first query with the same password.
    const t = performance.now();
    const fresh = new Pool({ host: pg.host, port: pg.port, user: PG_ROLE, database: 'postgres', password, max: 1 });
    await fresh.query('SELECT 1');
    bare.push(performance.now() - t);
    await fresh.end();
    if (i === 0) continue; // warm-up
    toUpdate.push(u - writtenAt);
    toRebuilt.push(r - writtenAt);
    toFirstQuery.push(q - writtenAt);
  }
  stop = true;
  await loops;
  await client.close();
  await server.close();
  await pg.stop();

  const row = (what: string, xs: number[]): string =>
    `| ${what} | ${quantile(xs, 0.5).toFixed(1)} ms | ${quantile(xs, 0.9).toFixed(1)} ms |`;
  const ratio = (xs: number[], base: number[]): string => (quantile(xs, 0.5) / quantile(base, 0.5)).toFixed(2);
  console.log(
    [
      `### Live resource: a PostgreSQL password rotation under load (${ROTATIONS} rotations, ${CONCURRENCY} query loops on a pool of ${PG_POOL_MAX})`,
      '',
      `Queries: ${ok} answered, **${failed} failed** during the rotations.${errors.length ? ` (${errors.join('; ')})` : ''}`,
      '',
      '| from the secret write (`client.setSecret`) to… | p50 | p90 |',
      '|---|---:|---:|',
      row("the client's update event (baseline: delivery of the value)", toUpdate),
      row('the new pool swapped in (`rebuilt`: create + `SELECT 1` with the new password)', toRebuilt),
      row('**the first query answered by the new pool**', toFirstQuery),
      row('(baseline) a bare `new Pool()` and its first query', bare.slice(1)),
      '',
      `Write → first query on the new pool (p50) is **${ratio(toFirstQuery, toUpdate)}x** the delivery of the value alone, ` +
        `and **${ratio(toFirstQuery, bare.slice(1))}x** a bare pool's first query.`,
    ].join('\n'),
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
