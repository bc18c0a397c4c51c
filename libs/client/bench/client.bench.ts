/**
 * Benchmarks of @vane/client, in one run, each against a baseline:
 *
 * 1. config / flag reads vs a bare `Map.get` on the same keys;
 * 2. the 304 path vs the 200 path of a sync, for a 10 000-key snapshot;
 * 3. admin write on the local server → change listener fired, p50/p99 over 1 000 changes.
 *
 * Run: `npm run bench -w @vane/client` (prints a Markdown report).
 */
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { startVaneServer, type VaneServerSeed } from '@vane/server';
import { VaneClient, type ChangeEvent } from '@vane/client';

const SK = 'svs_bench_secret_key_0000000001';
const silent = { warn() {}, error() {} };

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
const median = (xs: number[]): number =>
  quantile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );

/** ns per call of `body` over `iterations` calls, keys cycled. */
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
  const client = await VaneClient.create({
    baseUrl: server.baseUrl('bench'),
    apiKey: SK,
    stream: false,
    logger: silent,
  });
  const configKeys = Object.keys(configs);
  const flagKeys = Object.keys(flags);
  const configMap = new Map<string, unknown>(client.configs());
  const flagMap = new Map<string, boolean>(flagKeys.map((k) => [k, client.flag(k)]));
  const n = 5_000_000;
  const rows = { mapConfig: [] as number[], config: [] as number[], mapFlag: [] as number[], flag: [] as number[] };
  for (let round = 0; round < 7; round++) {
    rows.mapConfig.push(nsPerOp(n, (i) => configMap.get(configKeys[i & 1023]!) !== undefined));
    rows.config.push(nsPerOp(n, (i) => client.config(configKeys[i & 1023]!) !== undefined));
    rows.mapFlag.push(nsPerOp(n, (i) => flagMap.get(flagKeys[i & 1023]!) === true));
    rows.flag.push(nsPerOp(n, (i) => client.flag(flagKeys[i & 1023]!)));
  }
  await client.close();
  await server.close();
  const [mc, c, mf, f] = [median(rows.mapConfig), median(rows.config), median(rows.mapFlag), median(rows.flag)];
  return [
    `| \`client.config(key)\` vs \`Map.get(key)\` (1 024 keys) | ${c.toFixed(1)} ns | ${mc.toFixed(1)} ns | **${(c / mc).toFixed(2)}x** | within 2x |`,
    `| \`client.flag(key)\` vs \`Map.get(key)\` (1 024 keys) | ${f.toFixed(1)} ns | ${mf.toFixed(1)} ns | **${(f / mf).toFixed(2)}x** | within 2x |`,
  ];
}

async function syncBench(): Promise<string[]> {
  const configs: Record<string, string | number | boolean> = {};
  for (let i = 0; i < 10_000; i++)
    configs[`section${i % 100}.key${i}`] =
      i % 3 === 0 ? `a string value number ${i}` : i % 3 === 1 ? i * 1.5 : i % 2 === 0;
  const seed: VaneServerSeed = { services: { big: { kind: 'backend', keys: [SK], configs } } };
  const server = await startVaneServer({ seed, port: 0 });
  const client = await VaneClient.create({
    baseUrl: server.baseUrl('big'),
    apiKey: SK,
    stream: false,
    logger: silent,
    ttlMs: 3_600_000,
  });
  const notModified: number[] = [];
  const updated: number[] = [];
  for (let i = 0; i < 30; i++) await client.sync(); // warm-up
  for (let i = 0; i < 300; i++) {
    let t = performance.now();
    const a = await client.sync();
    notModified.push(performance.now() - t);
    server.admin.setConfig('big', 'section0.key0', i);
    t = performance.now();
    const b = await client.sync();
    updated.push(performance.now() - t);
    if (a.status !== 'not-modified' || b.status !== 'updated') throw new Error('unexpected sync outcome');
  }
  const bytes = JSON.stringify({ configs }).length;
  await client.close();
  await server.close();
  const p304 = median(notModified);
  const p200 = median(updated);
  return [
    `| sync, 10 000-key snapshot (~${Math.round(bytes / 1024)} KiB): 304 vs 200, p50 | ${p304.toFixed(2)} ms | ${p200.toFixed(2)} ms | **${(p304 / p200).toFixed(3)}x** (200 is ${(p200 / p304).toFixed(1)}x slower) | 304 parses nothing |`,
  ];
}

async function latencyBench(): Promise<string[]> {
  const seed: VaneServerSeed = {
    services: { shop: { kind: 'backend', keys: [SK], configs: { 'bench.counter': -1 } } },
  };
  const server = await startVaneServer({ seed, port: 0 });
  const client = await VaneClient.create({ baseUrl: server.baseUrl('shop'), apiKey: SK, logger: silent });
  const deadline = Date.now() + 5000;
  while (!client.connected) {
    if (Date.now() > deadline) throw new Error('stream did not connect');
    await new Promise((r) => setTimeout(r, 5));
  }
  let waiting: ((e: ChangeEvent) => void) | undefined;
  client.onChange((e) => waiting?.(e));
  const once = (): Promise<ChangeEvent> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no change event within 2 s')), 2000);
      waiting = (e) => {
        clearTimeout(timer);
        waiting = undefined;
        resolve(e);
      };
    });
  const samples: number[] = [];
  for (let i = 0; i < 1100; i++) {
    const event = once();
    const t = performance.now();
    server.admin.setConfig('shop', 'bench.counter', i);
    await event;
    if (i >= 100) samples.push(performance.now() - t); // the first 100 warm up
  }
  await client.close();
  await server.close();
  samples.sort((a, b) => a - b);
  return [
    `| admin write → change listener, 1 000 changes: p50 / p99 / max | ${quantile(samples, 0.5).toFixed(3)} ms / ${quantile(samples, 0.99).toFixed(3)} ms / ${samples[samples.length - 1]!.toFixed(3)} ms | — | p99 **${quantile(samples, 0.99) < 10 ? 'under' : 'OVER'} 10 ms** | p99 < 10 ms |`,
  ];
}

async function main(): Promise<void> {
  const rows = [...(await readBench()), ...(await syncBench()), ...(await latencyBench())];
  console.log(
    `Node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'} (${cpus().length} cores), ${new Date().toISOString()}\n`,
  );
  console.log('| measure | client | baseline | ratio | target |');
  console.log('|---|---|---|---|---|');
  for (const row of rows) console.log(row);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
