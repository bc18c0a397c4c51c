#!/usr/bin/env node
// What a write on a PostgreSQL store keeps to undo itself (Store.saveServices) for a service that has kept
// many secret versions, against a deep copy of the same service (structuredClone, what it kept before), in
// the same run. Run on the built package: `node bench/undo-copy.bench.mjs`.
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';

const require = createRequire(import.meta.url);
const { Store } = require('../dist/cjs/domain/store.js');
const { parseServerData } = require('../dist/cjs/seed/seed-parser.js');
const { ManualClock } = require('../dist/cjs/domain/clock.js');

const SECRETS = 100;
const VERSIONS = 1000;
const CONFIGS = 2000;

const configs = {};
for (let i = 0; i < CONFIGS; i++) configs[`section${i % 50}.key${i}`] = i;
const store = new Store(
  parseServerData({ services: { big: { kind: 'backend', keys: ['svs_bench_undo'], configs } } }, 'bench seed'),
  new ManualClock(Date.parse('2026-11-27T10:00:00Z')),
);
for (let s = 0; s < SECRETS; s++) {
  for (let v = 0; v < VERSIONS; v++)
    store.setSecret('big', `secret${s}`, `value-${s}-${v}`.padEnd(40, 'x'), 'text', 'bench');
}

/** Mean ms per call of `copy` over `runs`, after three to warm up. */
function measure(copy, runs) {
  for (let i = 0; i < 3; i++) copy();
  const start = performance.now();
  for (let i = 0; i < runs; i++) copy();
  return (performance.now() - start) / runs;
}

const service = store.data.services.get('big');
const deep = measure(() => structuredClone(service), 10);
const kept = measure(() => store.saveServices(['big']), 200);
console.log(`node ${process.version}: a service of ${SECRETS * VERSIONS} secret versions and ${CONFIGS} configs`);
console.log('| undo copy per write | ms | ratio |');
console.log('|---|---:|---:|');
console.log(`| deep copy (structuredClone, the baseline) | ${deep.toFixed(2)} | 1.00 |`);
console.log(`| Store.saveServices | ${kept.toFixed(2)} | ${(kept / deep).toFixed(4)} |`);
