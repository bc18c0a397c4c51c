/**
 * Telemetry's cost and its lag figure, in one run, with the OpenTelemetry SDK
 * registered (meter provider and tracer provider, in-memory exporters):
 *
 * 1. config / flag reads of a client with telemetry on against one with
 *    `telemetry: false`, same snapshot, same process (target: at most 1.1x);
 * 2. the propagation lag the `vane.client.propagation.lag` metric reports
 *    against the lag measured from outside as the local-server benchmark
 *    does (admin write sent → patch received by a raw SSE reader), and
 *    against admin write sent → the client's update, for the same writes.
 *    The local server runs in its own process, as in its benchmark.
 *
 * Run: `npm run bench -w @vane/client` (prints a Markdown report).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { metrics, trace } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type HistogramMetricData,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { startVaneServer, type VaneServerSeed } from '@vane/server';
import { VaneClient } from '@vane/client';
import { createSseParser } from '@vane/client-core';

const SK = 'svs_bench_secret_key_0000000001';
const TOKEN = 'bench-admin-token';
const silent = { warn() {}, error() {} };
const WRITES = process.argv.includes('--quick') ? 50 : 300;

const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
const meterProvider = new MeterProvider({ readers: [reader] });
const tracerProvider = new BasicTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())],
});
metrics.setGlobalMeterProvider(meterProvider);
trace.setGlobalTracerProvider(tracerProvider);

const quantile = (sorted: number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const median = (xs: number[]): number =>
  quantile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** ns per call of `body` over `iterations` calls. */
function nsPerOp(iterations: number, body: (i: number) => boolean): number {
  let sink = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) if (body(i)) sink++;
  const ns = Number(process.hrtime.bigint() - start) / iterations;
  if (sink === -1) console.log(sink);
  return ns;
}

async function readBench(): Promise<string[]> {
  const configs: Record<string, string | number> = {};
  const flags: Record<string, { is_enabled: boolean }> = {};
  for (let i = 0; i < 1024; i++) {
    configs[`section${i % 32}.key${i}`] = i % 2 ? `value-${i}` : i;
    flags[`flag-${i}`] = { is_enabled: i % 3 === 0 };
  }
  const seed: VaneServerSeed = { services: { bench: { kind: 'backend', keys: [SK], configs, flags } } };
  const server = await startVaneServer({ seed, port: 0 });
  const options = { baseUrl: server.baseUrl('bench'), apiKey: SK, stream: false, logger: silent };
  const on = await VaneClient.create(options);
  const off = await VaneClient.create({ ...options, telemetry: false });
  if (!on.telemetry.active || off.telemetry.active) throw new Error('telemetry is not as the bench expects');
  const configKeys = Object.keys(configs);
  const flagKeys = Object.keys(flags);
  const n = 5_000_000;
  const rows = { configOn: [] as number[], configOff: [] as number[], flagOn: [] as number[], flagOff: [] as number[] };
  // Alternated rounds: drift of the machine (other processes, frequency) falls on both sides alike.
  for (let round = 0; round < 9; round++) {
    rows.configOff.push(nsPerOp(n, (i) => off.config(configKeys[i & 1023]!) !== undefined));
    rows.configOn.push(nsPerOp(n, (i) => on.config(configKeys[i & 1023]!) !== undefined));
    rows.flagOff.push(nsPerOp(n, (i) => off.flag(flagKeys[i & 1023]!)));
    rows.flagOn.push(nsPerOp(n, (i) => on.flag(flagKeys[i & 1023]!)));
  }
  await on.close();
  await off.close();
  await server.close();
  const [cOn, cOff, fOn, fOff] = [
    median(rows.configOn),
    median(rows.configOff),
    median(rows.flagOn),
    median(rows.flagOff),
  ];
  const verdict = (r: number): string => (r <= 1.1 ? 'within 1.1x' : 'OVER 1.1x');
  return [
    `| \`client.config(key)\`, telemetry on vs \`telemetry: false\` (1 024 keys, SDK registered) | ${cOn.toFixed(1)} ns | ${cOff.toFixed(1)} ns | **${(cOn / cOff).toFixed(2)}x** (${verdict(cOn / cOff)}) | ≤ 1.1x |`,
    `| \`client.flag(key)\`, telemetry on vs \`telemetry: false\` | ${fOn.toFixed(1)} ns | ${fOff.toFixed(1)} ns | **${(fOn / fOff).toFixed(2)}x** (${verdict(fOn / fOff)}) | ≤ 1.1x |`,
  ];
}

/** The local server's CLI in a process of its own, on a free port; resolves once it listens. */
async function startServerProcess(seedPath: string): Promise<{ child: ChildProcess; port: number }> {
  const cli = fileURLToPath(new URL('../../server/dist/cjs/cli.js', import.meta.url));
  // The token through the environment: the server refuses one on its command line.
  const child = spawn(process.execPath, [cli, '--seed', seedPath, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, VANE_ADMIN_TOKEN: TOKEN },
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('the server did not start within 10 s')), 10_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const match = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
  });
  return { child, port };
}

async function lagBench(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'vane-telemetry-bench-'));
  const seedPath = join(dir, 'seed.json');
  writeFileSync(
    seedPath,
    JSON.stringify({ services: { bench: { kind: 'backend', keys: [SK], configs: { 'bench.value': 'x' } } } }),
  );
  const { child, port } = await startServerProcess(seedPath);
  const agent = new Agent({ keepAlive: true });
  const adminPut = (value: string): Promise<void> =>
    new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'PUT',
          path: '/admin/v1/services/bench/configs/bench.value',
          agent,
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 200 ? resolve() : reject(new Error(`admin write: ${res.statusCode}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ value }));
    });

  // The outside observer of the local-server benchmark: a raw SSE reader timing each patch's arrival.
  let onRaw: ((value: string, at: number) => void) | undefined;
  const raw = await new Promise<ReturnType<typeof request>>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/v1/stream',
        setHost: false,
        headers: { host: `bench.localhost:${port}`, 'x-service-api-key': SK },
      },
      (res) => {
        res.setEncoding('utf8');
        const feed = createSseParser((event) => {
          if (event.event === 'resync') resolve(req);
          if (event.event !== 'patch') return;
          const at = performance.now();
          const value = /"bench\.value":"([^"]+)"/.exec(event.data)?.[1];
          if (value !== undefined) onRaw?.(value, at);
        });
        res.on('data', (text: string) => feed(text));
      },
    );
    req.on('error', reject);
    req.end();
  });

  const client = await VaneClient.create({ baseUrl: `http://bench.localhost:${port}`, apiKey: SK, logger: silent });
  const deadline = Date.now() + 10_000;
  while (!client.connected) {
    if (Date.now() > deadline) throw new Error('stream did not connect');
    await new Promise((r) => setTimeout(r, 5));
  }
  const outsidePatch: number[] = [];
  const outsideApplied: number[] = [];
  const metricSamples: number[] = [];
  for (let i = 0; i < WRITES; i++) {
    const value = `v-${i}`;
    let rawAt = 0;
    const rawSeen = new Promise<void>((resolve) => (onRaw = (v, at) => v === value && ((rawAt = at), resolve())));
    const applied = new Promise<number>((resolve) => {
      const off = client.onUpdate((update) => {
        off();
        if (update.committedAtMs !== undefined) metricSamples.push(update.appliedAtMs - update.committedAtMs);
        resolve(performance.now());
      });
    });
    const sentAt = performance.now();
    await adminPut(value);
    const appliedAt = await applied;
    await rawSeen;
    if (i < 20) continue; // warm-up
    outsidePatch.push(rawAt - sentAt);
    outsideApplied.push(appliedAt - sentAt);
  }
  metricExporter.reset();
  await reader.forceFlush();
  const exported = metricExporter.getMetrics().at(-1)!;
  const lag = exported.scopeMetrics
    .flatMap((s) => s.metrics)
    .find((m) => m.descriptor.name === 'vane.client.propagation.lag') as HistogramMetricData | undefined;
  const point = lag?.dataPoints[0]?.value;
  if (point === undefined || point.count !== WRITES)
    throw new Error(`the lag metric has ${point?.count ?? 0} values, not ${WRITES}`);
  const metricMeanMs = ((point.sum ?? 0) / point.count) * 1000;
  await client.close();
  raw.destroy();
  agent.destroy();
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
  const sorted = (xs: number[]): number[] => [...xs].sort((a, b) => a - b);
  const [patch, appliedS, metricS] = [sorted(outsidePatch), sorted(outsideApplied), sorted(metricSamples)];
  return [
    `| propagation lag, ${WRITES} writes: the metric (commit → applied, the client's clock against the server's; mean / p50 / p99) | ${metricMeanMs.toFixed(2)} ms / ${quantile(metricS, 0.5).toFixed(0)} ms / ${quantile(metricS, 0.99).toFixed(0)} ms | — | (whole ms: \`committed_at\` and \`Date.now()\` have ms resolution) | — |`,
    `| from outside, as the local-server bench: admin write sent → patch received by a raw SSE reader (mean / p50 / p99) | ${mean(patch).toFixed(2)} ms / ${quantile(patch, 0.5).toFixed(2)} ms / ${quantile(patch, 0.99).toFixed(2)} ms | — | metric mean / outside mean **${(metricMeanMs / mean(patch)).toFixed(2)}x** | the metric ≤ the outside figure (it starts at the commit, after the request reached the server) |`,
    `| from outside: admin write sent → the client's update (mean / p50 / p99) | ${mean(appliedS).toFixed(2)} ms / ${quantile(appliedS, 0.5).toFixed(2)} ms / ${quantile(appliedS, 0.99).toFixed(2)} ms | — | metric mean / this mean **${(metricMeanMs / mean(appliedS)).toFixed(2)}x** | — |`,
  ];
}

async function main(): Promise<void> {
  const rows = [...(await readBench()), ...(await lagBench())];
  console.log(
    `Node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'} (${cpus().length} cores), ${new Date().toISOString()}\n`,
  );
  console.log('| measure | measured | baseline | ratio | target |');
  console.log('|---|---|---|---|---|');
  for (const row of rows) console.log(row);
  await meterProvider.shutdown();
  await tracerProvider.shutdown();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
