#!/usr/bin/env node
// Benchmarks of a fleet: three `vane-server` replicas on one PostgreSQL, each in its own process, run on the
// built package (`npm run bench:fleet`, part of `npm run bench`). Measured in one run, ratios from that run:
//  1. cross-replica propagation: a write through replica A → the patch received by raw SSE readers on B and C,
//     with 1,000 streams open on each replica (p50/p99), beside the readers on A itself (each replica's
//     readers in a process of their own: stream-readers.mjs);
//  2. database load of the 3 replicas idle: statements per second in their database (pg_stat_statements),
//     all replicas together;
//  3. /v1/sync 304s per second on one replica, PostgreSQL store against the file store;
//  4. reads during contention: /v1/sync 304s per second on one replica while 6 writers (2 through each replica)
//     write another service, against the same replica with no writes, and the reads that failed (none may);
//  5. admin writes per second and p99, PostgreSQL store against the file journal.
// Compared figures are measured in alternating rounds (medians), so a shared machine's changing load weighs on
// both sides alike.
// Skipped, saying so, when PostgreSQL is not installed.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { measureAdminWrites } from './admin-writes.mjs';
import { findPostgresBin, startBenchPostgres } from './bench-postgres.mjs';
import { adminPut, startServerProcess } from './bench-server.mjs';
import { now, StreamReaders } from './stream-readers.mjs';

const QUICK = process.argv.includes('--quick');
const CLI = fileURLToPath(new URL('../dist/cjs/cli.js', import.meta.url));
const KEY = 'svs_bench_secret';
const TOKEN = 'bench-admin-token';
const CONFIG_KEYS = 2000;
const STREAMS_PER_REPLICA = QUICK ? 100 : 1000;
const WRITES = QUICK ? 30 : 200;
const DURATION_S = QUICK ? 2 : 5;
const IDLE_S = QUICK ? 10 : 30;
const ROUNDS = QUICK ? 1 : 3;
const WAIT_MS = 30_000;

const bin = findPostgresBin();
if (bin === undefined) {
  console.log('fleet bench skipped: PostgreSQL (initdb, postgres) is not installed');
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), 'vane-bench-fleet-'));
const seedPath = join(dir, 'bench.seed.json');
const configs = {};
for (let i = 0; i < CONFIG_KEYS; i++) configs[`section${i % 50}.key${i}`] = i % 3 === 0 ? `value-${i}` : i;
// `contended`: the service the contention writers write, so the service read keeps its ETag (its 304s) meanwhile.
writeFileSync(
  seedPath,
  JSON.stringify({
    tenant: { write_rate_per_minute: 1_000_000 },
    services: { bench: { kind: 'backend', keys: [KEY], configs }, contended: { kind: 'backend' } },
  }),
);
/** Writers of the contention measure: two through each replica, one write in flight each. */
const CONTENTION_WRITERS = 6;

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const fmt = (ms) => `${ms.toFixed(2)} ms`;
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
const children = [];

/** Starts the CLI with `args`, the store in VANE_STORE (a URL may hold a password: never on argv); resolves with its port. */
async function startCli(args, store) {
  const started = await startServerProcess(CLI, {
    seedPath,
    args,
    adminToken: TOKEN,
    rootKey: Buffer.alloc(32, 7).toString('base64'),
    store,
    timeoutMs: WAIT_MS,
  });
  children.push(started.child);
  return started;
}

/** Writes through `replicas[0]`; samples the delay to the readers on each replica (a reader process each). */
async function propagation(replicas, streamsPerReplica) {
  const readers = await Promise.all(
    replicas.map(({ port }) =>
      StreamReaders.start({
        port,
        host: `bench.localhost:${port}`,
        apiKey: KEY,
        count: streamsPerReplica,
        configKey: 'bench.value',
        timeoutMs: WAIT_MS,
      }),
    ),
  );
  const samples = replicas.map(() => []);
  try {
    for (let i = 0; i < WRITES; i++) {
      const value = `fleet-${i}`;
      const received = Promise.all(readers.map((r) => r.expect(value)));
      const sentAt = now();
      const status = await adminPut(
        { port: replicas[0].port, token: TOKEN, agent },
        '/admin/v1/services/bench/configs/bench.value',
        { value },
      );
      if (status !== 200) throw new Error(`admin write answered ${status}`);
      for (const [index, times] of (await received).entries()) {
        for (const at of times) samples[index].push(Number(at - sentAt) / 1e6);
      }
    }
  } finally {
    await Promise.all(readers.map((r) => r.close()));
  }
  const summary = (values) => {
    values.sort((a, b) => a - b);
    return { samples: values.length, p50: percentile(values, 50), p99: percentile(values, 99), max: values.at(-1) };
  };
  return { local: summary(samples[0]), remote: summary(samples.slice(1).flat()) };
}

/** Statements per second run in `database` over `seconds` (pg_stat_statements), and the busiest statement. */
async function databaseLoad(pg, database, seconds) {
  const statements = () =>
    pg.query(
      `SELECT calls::int AS calls, left(regexp_replace(query, '\\s+', ' ', 'g'), 60) AS query
       FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1 ORDER BY calls DESC`,
      [database],
    );
  await pg.query('SELECT pg_stat_statements_reset()');
  const start = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const rows = await statements();
  const elapsedS = (performance.now() - start) / 1000;
  const calls = rows.reduce((sum, row) => sum + row.calls, 0);
  return { perSecond: calls / elapsedS, top: rows[0]?.query ?? 'none' };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function notModifiedPerSecond(port) {
  const measure = await notModifiedAnswers(port);
  return async () => {
    const { perSecond, failed } = await measure();
    if (failed > 0) throw new Error('the 304 path answered other than 304');
    return perSecond;
  };
}

/** A measure of `/v1/sync` 304s on `port` (20 connections): per second, and the answers other than 304. */
async function notModifiedAnswers(port) {
  const host = `bench.localhost:${port}`;
  const etag = await new Promise((resolve, reject) => {
    request(
      { host: '127.0.0.1', port, path: '/v1/sync', agent, setHost: false, headers: { host, 'x-service-api-key': KEY } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.headers.etag));
      },
    )
      .on('error', reject)
      .end();
  });
  return async () => {
    const result = await autocannon({
      url: `http://127.0.0.1:${port}/v1/sync`,
      headers: { host, 'x-service-api-key': KEY, 'if-none-match': etag },
      connections: 20,
      duration: DURATION_S,
    });
    return {
      perSecond: result.requests.average,
      failed: result['2xx'] + result['4xx'] + result['5xx'] + result.errors + result.timeouts,
    };
  };
}

/** CPU seconds `pid` has used (user and system), from /proc; undefined where there is no /proc. */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime, fields 14 and 15 of stat (11 and 12 after the command), in clock ticks of 1/100 s.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/**
 * Reads during contention: `/v1/sync` 304s per second on `replicas[reader]` while {@link CONTENTION_WRITERS}
 * writers (two through each replica, one write in flight each) write the `contended` service, which races them
 * for the fleet's next sequence numbers; and the same replica with no writes. Alternating rounds, medians; the
 * failed reads and refused writes are summed over the rounds.
 */
async function readsDuringContention(replicas, reader) {
  const measure = await notModifiedAnswers(replicas[reader].port);
  const failed = { reads: 0, writes: 0, written: 0 };
  /** The reader replica's and the other replicas' CPU, in cores, over the contended runs and the quiet ones. */
  const cpu = { contended: { reader: [], others: [] }, quiet: { reader: [], others: [] } };
  const sampleCpu = async (into, run) => {
    const before = replicas.map((r) => cpuSeconds(r.pid));
    const startedAt = performance.now();
    const result = await run();
    const elapsedS = (performance.now() - startedAt) / 1000;
    const used = replicas.map((r, i) => (cpuSeconds(r.pid) ?? NaN) - (before[i] ?? NaN));
    into.reader.push(used[reader] / elapsedS);
    into.others.push(used.filter((_, i) => i !== reader).reduce((a, b) => a + b, 0) / elapsedS);
    return result;
  };
  const contended = async () => {
    let writing = true;
    let n = 0;
    const writers = Array.from({ length: CONTENTION_WRITERS }, async (_, i) => {
      const { port } = replicas[i % replicas.length];
      while (writing) {
        const status = await adminPut(
          { port, token: TOKEN, agent },
          `/admin/v1/services/contended/configs/w${i}.${n++ % 64}`,
          { value: n },
        ).catch(() => 0);
        if (status === 200) failed.written++;
        else failed.writes++;
      }
    });
    const result = await sampleCpu(cpu.contended, measure);
    writing = false;
    await Promise.all(writers);
    failed.reads += result.failed;
    return result.perSecond;
  };
  const quiet = async () => {
    const result = await sampleCpu(cpu.quiet, measure);
    failed.reads += result.failed;
    return result.perSecond;
  };
  const rates = await alternating({ contended, quiet }, ROUNDS);
  const cores = (values) => median(values).toFixed(2);
  return {
    ...rates,
    ...failed,
    cpu: `replica B ${cores(cpu.contended.reader)} / ${cores(cpu.quiet.reader)} cores, A and C ${cores(cpu.contended.others)} / ${cores(cpu.quiet.others)}`,
  };
}

/**
 * Runs each measure of `measures` (name → async () => number) in turn, `rounds` times, after one warm-up
 * each: alternating, so a machine whose load changes meanwhile weighs on all alike. Medians by name.
 */
async function alternating(measures, rounds) {
  const results = Object.fromEntries(Object.keys(measures).map((name) => [name, []]));
  for (const measure of Object.values(measures)) await measure();
  for (let round = 0; round < rounds; round++) {
    for (const [name, measure] of Object.entries(measures)) results[name].push(await measure());
  }
  return Object.fromEntries(Object.entries(results).map(([name, values]) => [name, median(values)]));
}

const pg = await startBenchPostgres(bin);
try {
  const fleetUrl = await pg.createDatabase('bench_fleet');
  // The first replica seeds the empty database; the others start on what it wrote.
  // The raw readers open each replica's streams directly and never reconnect: no rebalancing under them.
  const fleetArgs = ['--rebalance-interval-ms', '0'];
  const first = await startCli(fleetArgs, fleetUrl);
  const replicas = [first, ...(await Promise.all([startCli(fleetArgs, fleetUrl), startCli(fleetArgs, fleetUrl)]))];

  const idle = await databaseLoad(pg, 'bench_fleet', IDLE_S);
  // One stream per replica: the hop through PostgreSQL alone; then the fan-out to every stream.
  const single = await propagation(replicas, 1);
  const spread = await propagation(replicas, STREAMS_PER_REPLICA);

  const contention = await readsDuringContention(replicas, 1);

  const file = await startCli(['--state', join(dir, 'state.json')]);
  const sync304 = await alternating(
    { postgres: await notModifiedPerSecond(replicas[1].port), file: await notModifiedPerSecond(file.port) },
    ROUNDS,
  );
  file.child.kill('SIGTERM');

  // Each round a fresh server on a fresh store: a journal or a database that grows round by round would skew it.
  const writeRuns = { postgres: [], file: [] };
  for (let round = 0; round < ROUNDS; round++) {
    writeRuns.file.push(await measureAdminWrites(CLI, { durationS: DURATION_S }));
    const store = await pg.createDatabase(`bench_writes_${round}`);
    writeRuns.postgres.push(await measureAdminWrites(CLI, { durationS: DURATION_S, store }));
  }
  const writes = Object.fromEntries(
    Object.entries(writeRuns).map(([name, runs]) => [
      name,
      { rps: median(runs.map((r) => r.rps)), p99: median(runs.map((r) => r.p99)) },
    ]),
  );

  const [server] = await pg.query('SHOW server_version');
  console.log(
    `\nnode ${process.version}, PostgreSQL ${server.server_version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), ` +
      `load average ${loadavg()[0].toFixed(1)}, ${QUICK ? 'quick run' : `full run, medians of ${ROUNDS} alternating rounds`}\n`,
  );
  console.log(`${WRITES} writes through replica A, one at a time, to streams open on each of 3 replicas\n`);
  console.log('| fleet figure | value | goal | ratio in this run |');
  console.log('|---|---:|---:|---:|');
  for (const [streams, { local, remote }] of [
    [1, single],
    [STREAMS_PER_REPLICA, spread],
  ]) {
    console.log(
      `| propagation, ${streams} stream(s) per replica: A → B and C, p50 / p99 | ${fmt(remote.p50)} / ${fmt(remote.p99)} (${remote.samples} samples) | ${streams === 1 ? 'p99 ≤ 15 ms (the hop)' : "p99 ≤ 1.15× A's own"} | ${(remote.p99 / local.p99).toFixed(2)}× A's own streams' p99 |`,
    );
    console.log(
      `| propagation, ${streams} stream(s) per replica: A → A, p50 / p99 | ${fmt(local.p50)} / ${fmt(local.p99)} | — | 1.00 |`,
    );
  }
  console.log(
    `| /v1/sync 304s per second, one replica: PostgreSQL / file store | ${sync304.postgres.toFixed(0)} / ${sync304.file.toFixed(0)} | ≥ 0.9× | ${(sync304.postgres / sync304.file).toFixed(2)}× |`,
  );
  console.log(
    `| /v1/sync 304s per second on replica B while ${CONTENTION_WRITERS} writers write through all three / with no writes | ${contention.contended.toFixed(0)} / ${contention.quiet.toFixed(0)} (${contention.reads} failed; writes ${contention.written} committed, ${contention.writes} refused; CPU ${contention.cpu}) | ≥ 0.8×, 0 failed | ${(contention.contended / contention.quiet).toFixed(2)}× |`,
  );
  console.log(
    `| admin writes per second: PostgreSQL / file journal | ${writes.postgres.rps.toFixed(0)} / ${writes.file.rps.toFixed(0)} | — | ${(writes.postgres.rps / writes.file.rps).toFixed(2)}× |`,
  );
  console.log(
    `| admin write p99: PostgreSQL / file journal | ${writes.postgres.p99} ms / ${writes.file.p99} ms | — | ${(writes.postgres.p99 / writes.file.p99).toFixed(2)}× |`,
  );
  console.log(
    `| database load of 3 idle replicas (${IDLE_S} s) | ${idle.perSecond.toFixed(2)} statements/s (busiest: \`${idle.top}…\`) | ≤ 1/s | — |`,
  );
  const met = (ok) => (ok ? 'met' : 'NOT met');
  console.log(
    `\ngoals: the hop (1 stream per replica) p99 ≤ 15 ms ${met(single.remote.p99 <= 15)}; at ${STREAMS_PER_REPLICA} streams per replica B and C p99 ≤ 1.15× A's ${met(spread.remote.p99 <= 1.15 * spread.local.p99)}; ` +
      `304s ≥ 0.9× the file store ${met(sync304.postgres >= 0.9 * sync304.file)}; 304s during contention ≥ 0.8× and 0 failed ${met(contention.contended >= 0.8 * contention.quiet && contention.reads === 0)}; idle load ≤ 1/s ${met(idle.perSecond <= 1)}`,
  );
} finally {
  agent.destroy();
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(
    children.map((c) =>
      c.exitCode !== null || c.signalCode !== null ? undefined : new Promise((r) => c.once('exit', r)),
    ),
  );
  await pg.stop();
  rmSync(dir, { recursive: true, force: true });
}
