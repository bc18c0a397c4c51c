#!/usr/bin/env node
// Benchmarks of the local server, run on the built package (`npm run bench`):
//  1. propagation: admin write → patch received, by 1, 100 and 1,000 concurrent streams (p50/p99);
//  2. /v1/sync throughput: the 304 path against the 200 path, measured in the same run;
//  3. admin write throughput and latency with --state (durable writes), against a baseline build when
//     `--baseline-cli PATH` names one (e.g. an older dist/cjs/cli.js), measured in the same run.
// The server runs in its own process, as users run it; the streams are read in another (stream-readers.mjs),
// the load is made in this one.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { measureAdminWrites } from './admin-writes.mjs';
import { adminPut, startServerProcess } from './bench-server.mjs';
import { now, StreamReaders } from './stream-readers.mjs';

const QUICK = process.argv.includes('--quick');
const BASELINE_AT = process.argv.indexOf('--baseline-cli');
const BASELINE_CLI = BASELINE_AT === -1 ? undefined : process.argv[BASELINE_AT + 1];
const CLI = fileURLToPath(new URL('../dist/cjs/cli.js', import.meta.url));
const KEY = 'svs_bench_secret';
const TOKEN = 'bench-admin-token';
const CONFIG_KEYS = 2000;
const STREAM_COUNTS = QUICK ? [1, 100] : [1, 100, 1000];
const WRITES = QUICK ? 30 : 200;
const DURATION_S = QUICK ? 2 : 5;
const WAIT_MS = 10_000;

const dir = mkdtempSync(join(tmpdir(), 'vane-bench-'));
const seedPath = join(dir, 'bench.seed.json');
const configs = {};
for (let i = 0; i < CONFIG_KEYS; i++) configs[`section${i % 50}.key${i}`] = i % 3 === 0 ? `value-${i}` : i;
writeFileSync(seedPath, JSON.stringify({ services: { bench: { kind: 'backend', keys: [KEY], configs } } }));

/** Starts `cli` on the bench seed; resolves with the child and its port. */
const startServer = (cli) => startServerProcess(cli, { seedPath, adminToken: TOKEN, timeoutMs: WAIT_MS });

const started = await startServer(CLI);
const server = started.child;
// Reassigned while the baseline build is measured, so the helpers below talk to it.
let port = started.port;
let host = `bench.localhost:${port}`;
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const fmt = (ms) => `${ms.toFixed(2)} ms`;

/** Writes `WRITES` values one at a time to `streams` streams read in a process of their own. */
async function propagation(streams) {
  const readers = await StreamReaders.start({
    port,
    host,
    apiKey: KEY,
    count: streams,
    configKey: 'bench.value',
    timeoutMs: WAIT_MS,
  });
  const samples = [];
  try {
    for (let i = 0; i < WRITES; i++) {
      const value = `${streams}-${i}`;
      const received = readers.expect(value);
      const sentAt = now();
      const status = await adminPut({ port, token: TOKEN, agent }, '/admin/v1/services/bench/configs/bench.value', {
        value,
      });
      if (status !== 200) throw new Error(`admin write answered ${status}`);
      for (const at of await received) samples.push(Number(at - sentAt) / 1e6);
    }
  } finally {
    await readers.close();
  }
  samples.sort((a, b) => a - b);
  return {
    streams,
    writes: WRITES,
    samples: samples.length,
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    max: samples[samples.length - 1],
  };
}

/** Baseline: one plain HTTP round trip to the same server (admin GET), p50 over 500 in a row. */
async function roundTrip() {
  const samples = [];
  for (let i = 0; i < 500; i++) {
    const start = performance.now();
    await new Promise((resolve, reject) => {
      request(
        { host: '127.0.0.1', port, path: '/admin/v1/tenant', agent, headers: { authorization: `Bearer ${TOKEN}` } },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      )
        .on('error', reject)
        .end();
    });
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return percentile(samples, 50);
}

async function syncThroughput(ifNoneMatch) {
  const headers = { host, 'x-service-api-key': KEY };
  if (ifNoneMatch) headers['if-none-match'] = ifNoneMatch;
  const result = await autocannon({
    url: `http://127.0.0.1:${port}/v1/sync`,
    headers,
    connections: 20,
    duration: DURATION_S,
  });
  if (result.non2xx && !ifNoneMatch) throw new Error(`${result.non2xx} non-2xx answers on the 200 path`);
  return { rps: result.requests.average, bytesPerSec: result.throughput.average, p99: result.latency.p99 };
}

try {
  // The ETag of the current snapshot, for the 304 path.
  const etag = await new Promise((resolve, reject) => {
    request(
      { host: '127.0.0.1', port, path: '/v1/sync', agent, setHost: false, headers: { host, 'x-service-api-key': KEY } },
      (res) => {
        let size = 0;
        res.on('data', (c) => (size += c.length));
        res.on('end', () => {
          console.log(`snapshot: ${CONFIG_KEYS} configs, ${size} bytes`);
          resolve(res.headers.etag);
        });
      },
    )
      .on('error', reject)
      .end();
  });
  await syncThroughput(undefined); // warm-up
  const full = await syncThroughput(undefined);
  const notModified = await syncThroughput(etag);

  const rtt = await roundTrip();
  const rows = [];
  for (const streams of STREAM_COUNTS) rows.push(await propagation(streams));

  console.log(`\nnode ${process.version}, ${QUICK ? 'quick run' : 'full run'}\n`);
  console.log(`baseline: one plain HTTP round trip to the same server, p50 ${fmt(rtt)}\n`);
  console.log('| streams | writes | samples | p50 | p99 | max | p50 / round trip | p99 / round trip |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    console.log(
      `| ${r.streams} | ${r.writes} | ${r.samples} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt(r.max)} | ${(r.p50 / rtt).toFixed(1)}x | ${(r.p99 / rtt).toFixed(1)}x |`,
    );
  }
  console.log('\n| /v1/sync path | requests/s | bytes/s | p99 latency | ratio to 200 |');
  console.log('|---|---:|---:|---:|---:|');
  console.log(
    `| 200 (full snapshot) | ${full.rps.toFixed(0)} | ${(full.bytesPerSec / 1e6).toFixed(1)} MB | ${full.p99} ms | 1.00 |`,
  );
  console.log(
    `| 304 (If-None-Match) | ${notModified.rps.toFixed(0)} | ${(notModified.bytesPerSec / 1e6).toFixed(2)} MB | ${notModified.p99} ms | ${(notModified.rps / full.rps).toFixed(2)} |`,
  );
  // Propagation through the baseline build, at the largest stream count, in the same run.
  let baselinePropagation;
  if (BASELINE_CLI) {
    const baseline = await startServer(BASELINE_CLI);
    const ours = port;
    port = baseline.port;
    host = `bench.localhost:${port}`;
    try {
      baselinePropagation = await propagation(STREAM_COUNTS[STREAM_COUNTS.length - 1]);
    } finally {
      baseline.child.kill('SIGTERM');
      port = ours;
      host = `bench.localhost:${port}`;
    }
    const r = baselinePropagation;
    const worst = rows[rows.length - 1];
    console.log(
      `\npropagation at ${r.streams} streams, baseline build: p50 ${fmt(r.p50)}, p99 ${fmt(r.p99)}, max ${fmt(r.max)}; this build / baseline: p50 ${(worst.p50 / r.p50).toFixed(2)}, p99 ${(worst.p99 / r.p99).toFixed(2)}`,
    );
  }

  const writeOptions = { durationS: DURATION_S };
  const writes = [];
  if (BASELINE_CLI) writes.push(['baseline', await measureAdminWrites(BASELINE_CLI, writeOptions)]);
  writes.push(['this build', await measureAdminWrites(CLI, writeOptions)]);
  console.log('\n| admin writes with --state | connections | writes/s | p50 | p99 | writes/s ratio | p99 ratio |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  const [, base] = writes[0];
  for (const [name, r] of writes) {
    console.log(
      `| ${name} | ${r.connections} | ${r.rps.toFixed(0)} | ${r.p50} ms | ${r.p99} ms | ${(r.rps / base.rps).toFixed(2)} | ${(r.p99 / base.p99).toFixed(2)} |`,
    );
  }
  const worst = rows[rows.length - 1];
  console.log(
    `\ntarget: p99 under 50 ms at ${worst.streams} streams → ${worst.p99 < 50 ? 'met' : 'NOT met'} (${fmt(worst.p99)})`,
  );
} finally {
  agent.destroy();
  server.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
