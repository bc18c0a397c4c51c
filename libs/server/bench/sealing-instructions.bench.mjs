#!/usr/bin/env node
// Sealed against unsealed secret writes and reads counted in machine instructions (main thread, valgrind's
// callgrind) rather than timed: on this shared machine requests per second drift by half from round to
// round, counts repeat within a few per cent. Each build runs bench/sealing-app.mjs (in-process server,
// file store, 50 secrets) in a process of its own: 1,000 requests to warm up, then 1,000 counted, 16 at a time.
//   node bench/sealing-instructions.bench.mjs [--quick] [--writes-only] [NAME=/path/to/dist]...
// With no NAME=dist, compares this build (sealed) with a copy of it with sealing off (bench/unsealed-copy.mjs).
// Needs `valgrind` (Debian package valgrind); skips with a message without it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { mainThreadInstructionsPerRequest, twoAtATime, valgrindAvailable } from '../../../scripts/callgrind-count.mjs';
import { secretWriteRequest } from './bench-server.mjs';

const QUICK = process.argv.includes('--quick');
// Secret writes only (half the time), e.g. to count the same builds again.
const KINDS = process.argv.includes('--writes-only') ? ['write'] : ['write', 'read'];
const WARMUP = QUICK ? 300 : 1000;
const COUNTED = QUICK ? 300 : 1000;
const KEY = 'svs_bench_secret';
const app = fileURLToPath(new URL('./sealing-app.mjs', import.meta.url));
const here = fileURLToPath(new URL('../dist', import.meta.url));

if (!valgrindAvailable()) {
  console.log('valgrind is not installed: skipped (Debian: apt-get install valgrind)');
  process.exit(0);
}

let builds = process.argv
  .slice(2)
  .filter((a) => a.includes('='))
  .map((a) => ({ name: a.slice(0, a.indexOf('=')), dist: a.slice(a.indexOf('=') + 1) }));
let scratch;
if (builds.length === 0) {
  scratch = mkdtempSync(join(tmpdir(), 'vane-unsealed-'));
  execFileSync(process.execPath, [fileURLToPath(new URL('./unsealed-copy.mjs', import.meta.url)), scratch]);
  builds = [
    { name: 'unsealed', dist: join(scratch, 'libs/server/dist') },
    { name: 'sealed', dist: here },
  ];
}

/** The processes running sealing-app.mjs on `dist` (under valgrind): this bench's own children. */
function appPids(dist) {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return args.includes(app) && args.includes(dist);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** `amount` requests of `kind`, 16 at a time. */
function load(kind, port, amount) {
  const host = `bench.localhost:${port}`;
  const options =
    kind === 'write'
      ? { requests: [secretWriteRequest({ host, apiKey: KEY, valuePrefix: 'secret-value-', counter: { sent: 0 } })] }
      : { url: `http://127.0.0.1:${port}/v1/sync`, headers: { host, 'x-service-api-key': KEY } };
  return autocannon({ url: `http://127.0.0.1:${port}`, connections: 16, amount, ...options });
}

const jobs = builds.flatMap((build) => KINDS.map((kind) => ({ ...build, kind })));
const counts = await twoAtATime(jobs, (job) =>
  mainThreadInstructionsPerRequest({
    appArgs: ['--expose-gc', app, job.dist],
    load: (port, amount) => load(job.kind, port, amount),
    warmup: WARMUP,
    counted: COUNTED,
    beforeCount: async () => {
      // A full collection inside the counted window would add to every request's share: one now instead.
      // The app runs under valgrind, whose process is node's: SIGUSR2 reaches the app's handler.
      for (const pid of appPids(job.dist)) process.kill(pid, 'SIGUSR2');
      await new Promise((resolve) => setTimeout(resolve, 500));
    },
  }),
);
if (scratch) rmSync(scratch, { recursive: true, force: true });
const count = (value) => (value === undefined ? '-' : Math.round(value).toLocaleString('en'));
const ratio = (a, b) => (a === undefined || b === undefined ? '-' : `${(a / b).toFixed(2)}x`);
console.log('| build | instructions per secret write | per secret read (sync, 50 secrets) |');
console.log('|---|---:|---:|');
const of = (name, kind) => counts[jobs.findIndex((j) => j.name === name && j.kind === kind)];
for (const { name } of builds) {
  console.log(`| ${name} | ${count(of(name, 'write'))} | ${count(of(name, 'read'))} |`);
}
const last = builds.at(-1).name;
for (const { name } of builds.slice(0, -1)) {
  console.log(
    `${last}/${name}: instructions per write ${ratio(of(last, 'write'), of(name, 'write'))}, ` +
      `per read ${ratio(of(last, 'read'), of(name, 'read'))} (throughput ratio about the inverse)`,
  );
}
