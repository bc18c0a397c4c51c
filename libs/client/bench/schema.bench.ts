/**
 * The cost of a schema, each figure against a baseline measured in the same run:
 *
 * 1. applying a 10 000-key snapshot with 100 validated keys (zod), against the same apply without a schema;
 * 2. applying a patch that changes one validated key, against the same patch without a schema;
 * 3. reading a validated key through `client.config()`, against a bare `Map.get`.
 *
 * Run: `npm run bench -w @vane/client` (prints a Markdown report).
 */
import { cpus, loadavg } from 'node:os';
import { z } from 'zod';
import { FileSecretStore } from '../src/secrets/file-secrets.js';
import { SchemaValidator } from '../src/schema/schema-validator.js';
import { StateStore } from '../src/store/state-store.js';
import { applyPatch, parsePatch, parseSnapshot, type Snapshot } from '@vane/client-core';
import type { VaneSchema } from '../src/schema/vane-schema.js';

const silent = { warn() {}, error() {} };
const clock = { now: () => Date.now() };
const KEYS = 10_000;
const VALIDATED = 100;

function snapshotDoc(revision: number): unknown {
  const configs: Record<string, unknown> = {};
  for (let i = 0; i < KEYS; i++) configs[`section${i % 50}.key${i}`] = i % 2 ? `value-${i}` : i;
  return { service: { slug: 'bench', kind: 'backend' }, revision, configs, flags: {}, secrets: {} };
}

const schema: VaneSchema = {
  configs: Object.fromEntries(
    Array.from({ length: VALIDATED }, (_, i) => {
      const key = `section${(i * 100) % 50}.key${i * 100}`;
      // Even keys hold numbers, odd keys strings (see snapshotDoc).
      return [key, (i * 100) % 2 ? z.string().min(1) : z.coerce.number().int().min(0)];
    }),
  ),
};

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function timeApply(withSchema: boolean, docs: unknown[], rounds: number): Promise<number> {
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const store = new StateStore(
      new FileSecretStore(),
      clock,
      silent,
      withSchema ? new SchemaValidator(schema) : undefined,
    );
    const start = process.hrtime.bigint();
    for (const doc of docs) await store.apply(parseSnapshot(doc), 'sync');
    samples.push(Number(process.hrtime.bigint() - start) / docs.length / 1000);
    await store.close();
  }
  return median(samples);
}

async function timePatch(withSchema: boolean, base: Snapshot, rounds: number, patches: number): Promise<number> {
  const samples: number[] = [];
  const key = Object.keys((schema.configs ?? {}) as object)[0]!;
  for (let r = 0; r < rounds; r++) {
    const store = new StateStore(
      new FileSecretStore(),
      clock,
      silent,
      withSchema ? new SchemaValidator(schema) : undefined,
    );
    await store.apply(base, 'sync');
    const start = process.hrtime.bigint();
    for (let i = 0; i < patches; i++) {
      const current = store.raw;
      const patch = parsePatch({ base: current.revision, revision: current.revision + 1, configs: { [key]: i } });
      await store.apply(applyPatch(current, patch), 'patch');
    }
    samples.push(Number(process.hrtime.bigint() - start) / patches / 1000);
    await store.close();
  }
  return median(samples);
}

async function main(): Promise<void> {
  const docs = Array.from({ length: 20 }, (_, i) => snapshotDoc(i + 1));
  const snapshots = docs.map((doc) => parseSnapshot(doc));
  // Warm-up of both paths.
  await timeApply(false, docs, 2);
  await timeApply(true, docs, 2);
  const plainSync = await timeApply(false, docs, 9);
  const schemaSync = await timeApply(true, docs, 9);
  await timePatch(false, snapshots[0]!, 2, 200);
  await timePatch(true, snapshots[0]!, 2, 200);
  const plainPatch = await timePatch(false, snapshots[0]!, 9, 500);
  const schemaPatch = await timePatch(true, snapshots[0]!, 9, 500);

  // Reads: a validated key read from the served map vs Map.get on a plain map of the same values.
  const store = new StateStore(new FileSecretStore(), clock, silent, new SchemaValidator(schema));
  await store.apply(snapshots[0]!, 'sync');
  const validatedKeys = Object.keys((schema.configs ?? {}) as object);
  const plain = new Map<string, unknown>(validatedKeys.map((k) => [k, store.snapshot.configs.get(k)]));
  const n = 5_000_000;
  const reads = { map: [] as number[], served: [] as number[] };
  let sink = 0;
  for (let round = 0; round < 7; round++) {
    let start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) if (plain.get(validatedKeys[i % VALIDATED]!) !== undefined) sink++;
    reads.map.push(Number(process.hrtime.bigint() - start) / n);
    start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) if (store.snapshot.configs.get(validatedKeys[i % VALIDATED]!) !== undefined) sink++;
    reads.served.push(Number(process.hrtime.bigint() - start) / n);
  }
  await store.close();
  if (sink === -1) console.log(sink);

  const f = (x: number): string => x.toFixed(1);
  console.log(`## @vane/client: the cost of a schema

${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, load average ${loadavg()[0]!.toFixed(1)}.
10 000-key snapshot, ${VALIDATED} keys validated with zod 4; medians of 9 rounds.

| measure | without schema | with schema | ratio |
|---|---:|---:|---:|
| parse and apply a whole snapshot (a 200 sync) | ${f(plainSync)} µs | ${f(schemaSync)} µs | ${(schemaSync / plainSync).toFixed(2)}x |
| parse and apply a patch changing one validated key | ${f(plainPatch)} µs | ${f(schemaPatch)} µs | ${(schemaPatch / plainPatch).toFixed(2)}x |
| read a validated key (ns) vs \`Map.get\` | ${median(reads.map).toFixed(2)} ns | ${median(reads.served).toFixed(2)} ns | ${(median(reads.served) / median(reads.map)).toFixed(2)}x |
`);
}

void main();
