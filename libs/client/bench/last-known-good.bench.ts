/**
 * What the last-known-good backup costs a running client, in one run, against
 * the same client without it:
 *
 * 1. a patch's apply time: admin write → change listener, p50/p99 over 1 000
 *    patches on a 1 000-config snapshot with secrets, two clients on the same
 *    server (one saving every revision to a file store, one not), measured in
 *    alternating blocks so the machine's drift hits both alike;
 * 2. one save of a 10 000-key snapshot (encode, seal with AES-256-GCM), and the
 *    file write, beside a bare `JSON.stringify` of the same data.
 *
 * Run: `npm run bench -w @vane/client` (prints a Markdown report).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startVaneServer, type VaneServerSeed } from '@vane/server';
import { FileBackupStore, VaneClient, type ChangeEvent } from '@vane/client';
import { encodeBackup } from '../src/last-known-good/backup-document.js';
import { deriveBackupKey } from '../src/last-known-good/backup-key.js';
import { parseSnapshot } from '@vane/client-core';

const SK = 'svs_bench_lkg_secret_key_000001';
const silent = { warn() {}, error() {} };

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function connected(client: VaneClient): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!client.connected) {
    if (Date.now() > deadline) throw new Error('stream did not connect');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** admin write → listener of `client`, one sample per call. */
function listenerTimer(client: VaneClient): (write: () => void) => Promise<number> {
  let waiting: ((e: ChangeEvent) => void) | undefined;
  client.onChange((e) => waiting?.(e));
  return (write) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no change event within 2 s')), 2000);
      const t = performance.now();
      waiting = () => {
        clearTimeout(timer);
        waiting = undefined;
        resolve(performance.now() - t);
      };
      write();
    });
}

async function applyBench(): Promise<string[]> {
  const configs: Record<string, string | number> = {};
  for (let i = 0; i < 1000; i++) configs[`section${i % 20}.key${i}`] = i % 2 ? `value-${i}` : i;
  const secrets: Record<string, { type: 'text'; value: string }> = {};
  for (let i = 0; i < 10; i++) secrets[`secret.${i}`] = { type: 'text', value: `rk_live_${'x'.repeat(40)}${i}` };
  const seed: VaneServerSeed = {
    services: {
      plain: { kind: 'backend', keys: [SK], configs: { ...configs, 'bench.counter': -1 }, secrets },
      saved: { kind: 'backend', keys: [`${SK}b`], configs: { ...configs, 'bench.counter': -1 }, secrets },
    },
  };
  const server = await startVaneServer({ seed, port: 0 });
  const dir = await mkdtemp(join(tmpdir(), 'vane-lkg-bench-'));
  const plain = await VaneClient.create({ baseUrl: server.baseUrl('plain'), apiKey: SK, logger: silent });
  const saved = await VaneClient.create({
    baseUrl: server.baseUrl('saved'),
    apiKey: `${SK}b`,
    logger: silent,
    lastKnownGood: { store: new FileBackupStore({ directory: dir }) },
  });
  await Promise.all([connected(plain), connected(saved)]);
  const time = { plain: listenerTimer(plain), saved: listenerTimer(saved) };
  const samples = { plain: [] as number[], saved: [] as number[] };
  let n = 0;
  for (let block = 0; block < 22; block++) {
    const order: Array<'plain' | 'saved'> = block % 2 ? ['saved', 'plain'] : ['plain', 'saved'];
    for (const which of order) {
      for (let i = 0; i < 50; i++) {
        const ms = await time[which](() => server.admin.setConfig(which, 'bench.counter', n++));
        if (block >= 2) samples[which].push(ms); // the first two blocks warm up
      }
    }
  }
  await plain.close();
  await saved.close();
  await server.close();
  await rm(dir, { recursive: true, force: true });
  const row = (name: string, xs: number[]): string => {
    xs.sort((a, b) => a - b);
    return `${name}: ${quantile(xs, 0.5).toFixed(3)} / ${quantile(xs, 0.99).toFixed(3)} ms`;
  };
  const p50 = (xs: number[]) => quantile(xs, 0.5);
  const p99 = (xs: number[]) => quantile(xs, 0.99);
  return [
    `| patch applied → listener, 1 000 patches, 1 000 configs + 10 secrets, p50 / p99 | ${row('with backup', samples.saved).split(': ')[1]} | ${row('without', samples.plain).split(': ')[1]} | **${(p50(samples.saved) / p50(samples.plain)).toFixed(2)}x** / ${(p99(samples.saved) / p99(samples.plain)).toFixed(2)}x |`,
  ];
}

async function saveBench(): Promise<string[]> {
  const configs: Record<string, string | number> = {};
  for (let i = 0; i < 10_000; i++) configs[`section${i % 32}.key${i}`] = i % 2 ? `value-${i}` : i;
  const secrets: Record<string, { type: 'text'; value: string; version: number }> = {};
  for (let i = 0; i < 20; i++)
    secrets[`secret.${i}`] = { type: 'text', value: `rk_live_${'y'.repeat(60)}`, version: 1 };
  const wire = { service: { slug: 'big', kind: 'backend' }, revision: 7, configs, secrets };
  const snapshot = parseSnapshot(wire);
  const serviceId = 'http://big.localhost:4400';
  const identity = { serviceId, key: deriveBackupKey(SK, 'api-key', serviceId) };
  const dir = await mkdtemp(join(tmpdir(), 'vane-lkg-bench-'));
  const store = new FileBackupStore({ directory: dir });
  const encode: number[] = [];
  const write: number[] = [];
  const stringify: number[] = [];
  let bytes = 0;
  for (let i = 0; i < 60; i++) {
    let t = performance.now();
    JSON.stringify(wire);
    stringify.push(performance.now() - t);
    t = performance.now();
    const doc = encodeBackup(snapshot, Date.now(), identity);
    encode.push(performance.now() - t);
    bytes = doc.length;
    t = performance.now();
    await store.write(identity.serviceId, doc);
    write.push(performance.now() - t);
  }
  await rm(dir, { recursive: true, force: true });
  const med = (xs: number[]) =>
    quantile(
      xs.slice(10).sort((a, b) => a - b),
      0.5,
    );
  return [
    `| one save, 10 000 configs + 20 secrets (${Math.round(bytes / 1024)} KiB): encode + seal, p50 | ${med(encode).toFixed(2)} ms | bare \`JSON.stringify\` ${med(stringify).toFixed(2)} ms | **${(med(encode) / med(stringify)).toFixed(2)}x** |`,
    `| the same save's file write (temp file, fsync, rename), p50 | ${med(write).toFixed(2)} ms | — | — |`,
  ];
}

async function main(): Promise<void> {
  const rows = [...(await applyBench()), ...(await saveBench())];
  console.log('| measure | with the backup | baseline | ratio |');
  console.log('|---|---|---|---|');
  for (const row of rows) console.log(row);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
