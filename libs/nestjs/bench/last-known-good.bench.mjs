#!/usr/bin/env node
// Start-to-ready of a NestJS app (NestFactory.create → app.init() resolved),
// on the built packages, in one run:
//   - default: no lastKnownGood, the service up (the baseline);
//   - backup, service up: lastKnownGood set, a normal start that also saves;
//   - backup, service down: the local server stopped (connection refused), the
//     app starts from the file backup.
// Rounds alternate (up, up with backup, down) and the local server is restarted
// on the same port between them, so drift hits every case alike. Prints a
// Markdown table; `--quick` for a short run.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FileBackupStore } from '@vane/client';
import { startVaneServer } from '@vane/server';
import { VaneModule } from '@vane/nestjs';

const QUICK = process.argv.includes('--quick');
const ROUNDS = QUICK ? 5 : 25;
const WARMUP = 3;
const KEY = 'svs_bench_nest_lkg_secret';
const configs = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`section${i % 10}.key${i}`, i]));
const seed = {
  services: {
    bench: {
      kind: 'backend',
      keys: [KEY],
      configs,
      flags: { 'bench-flag': { is_enabled: true } },
      secrets: { 'db.password': { type: 'text', value: 'bench-secret-value' } },
    },
  },
};
const silent = { warn() {}, error() {} };
const dir = await mkdtemp(join(tmpdir(), 'vane-lkg-nest-bench-'));
const store = new FileBackupStore({ directory: dir });

let server = await startVaneServer({ port: 0, seed });
const port = server.port;
const baseUrl = server.baseUrl('bench');

async function startApp(options) {
  class AppModule {}
  Module({ imports: [VaneModule.forRoot({ baseUrl, apiKey: KEY, logger: silent, ...options })] })(AppModule);
  const t = performance.now();
  const app = await NestFactory.create(AppModule, { logger: false });
  await app.init();
  const ms = performance.now() - t;
  await app.close();
  return ms;
}

// Prime the backup: one start with the service up saves it (close() waits for the save).
await startApp({ lastKnownGood: { store } });

const samples = { default: [], up: [], down: [] };
for (let round = 0; round < ROUNDS + WARMUP; round++) {
  const keep = round >= WARMUP;
  const a = await startApp({});
  const b = await startApp({ lastKnownGood: { store } });
  await server.close();
  const c = await startApp({ lastKnownGood: { store } });
  server = await startVaneServer({ port, seed });
  if (keep) {
    samples.default.push(a);
    samples.up.push(b);
    samples.down.push(c);
  }
}
await server.close();
await rm(dir, { recursive: true, force: true });

const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const base = median(samples.default);
console.log(`Node ${process.version}, ${ROUNDS} rounds (after ${WARMUP} warm-up), ${new Date().toISOString()}\n`);
console.log('| start of a Nest app (create → init) | median | ratio to the default start |');
console.log('|---|---:|---:|');
console.log(`| default (no lastKnownGood), service up | ${base.toFixed(1)} ms | 1.00 |`);
console.log(
  `| lastKnownGood (file), service up | ${median(samples.up).toFixed(1)} ms | ${(median(samples.up) / base).toFixed(2)} |`,
);
console.log(
  `| lastKnownGood (file), service down (connection refused) | ${median(samples.down).toFixed(1)} ms | ${(median(samples.down) / base).toFixed(2)} |`,
);
