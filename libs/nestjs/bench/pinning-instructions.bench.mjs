#!/usr/bin/env node
// What one revision per request (#21) costs, counted in machine instructions
// rather than timed: each app of bench/app.mjs runs under valgrind's
// callgrind, is warmed up, then serves a fixed number of GET /guarded
// requests with counting on; the figure is instructions per request.
//
// Why a second pinning benchmark: on a shared 2-core machine, requests per
// second of the same app drift by 20 % from round to round, far more than the
// few per cent this is about. Instruction counts of the same app repeat
// within about 2 % (JIT and garbage-collection timing still vary). They are
// not time: a cache miss or a syscall counts as little as an add. They say
// where the work is, the timed benchmark (pinning.bench.mjs) says what it costs.
//
// Three apps, each measured REPEATS times, two at a time (one per core):
// - live: `consistentReads: false`, no AsyncLocalStorage anywhere;
// - als-scope: live, but every request runs in an AsyncLocalStorage scope of
//   the app's own (what OpenTelemetry's context or nestjs-cls cost): the
//   floor any per-request async context pays on this Node;
// - pinned: the default (one revision per request).
// Needs `valgrind` (Debian package valgrind); skips with a message without it.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const QUICK = process.argv.includes('--quick');
const WARMUP_REQUESTS = QUICK ? 1000 : 2000;
const REQUESTS = QUICK ? 500 : 1000;
const REPEATS = QUICK ? 1 : 3;
const PATH = '/guarded';

try {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
} catch {
  console.log('valgrind is not installed: skipped (Debian: apt-get install valgrind)');
  process.exit(0);
}

const outDir = mkdtempSync(join(os.tmpdir(), 'vane-callgrind-'));
const APPS = {
  live: { args: ['--no-pinning'], label: 'live reads (`consistentReads: false`)' },
  alsScope: { args: ['--no-pinning', '--als-scope'], label: 'live reads + an AsyncLocalStorage scope per request' },
  pinned: { args: [], label: 'pinned (the default)' },
};

/** Instructions per request of one app: warm it up uncounted, then count REQUESTS requests. */
async function measure(args) {
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--smc-check=all', // V8 writes and patches its own machine code
      '--instr-atstart=no',
      // One file per thread: only the main thread's count, where requests run. V8 compiles
      // and marks on threads of its own, whose work lands in lumps (measured: up to a third
      // of all instructions in a window of 1,000 requests) and is not per-request work.
      '--separate-threads=yes',
      `--callgrind-out-file=${join(outDir, 'callgrind.%p')}`,
      process.execPath,
      fileURLToPath(new URL('./app.mjs', import.meta.url)),
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  try {
    const port = await new Promise((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error('the app did not start under valgrind within 180 s')), 180_000);
      child.stdout.on('data', (chunk) => {
        out += chunk;
        const line = out.split('\n').find((l) => l.startsWith('{"port"'));
        if (line) {
          clearTimeout(timer);
          resolve(JSON.parse(line).port);
        }
      });
      child.on('exit', (code) => reject(new Error(`the app exited with ${code}`)));
    });
    const load = async (amount) => {
      const r = await autocannon({ url: `http://127.0.0.1:${port}${PATH}`, connections: 4, amount, timeout: 120 });
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${r.non2xx} non-2xx answers, ${r.errors} errors`);
    };
    await load(WARMUP_REQUESTS);
    const control = (...flags) => execFileSync('callgrind_control', [...flags, String(child.pid)], { stdio: 'ignore' });
    control('-i', 'on');
    await load(REQUESTS);
    control('-d');
    // The main thread's file (`callgrind.<pid>.<dump>-01`).
    const file = readdirSync(outDir).find((f) => f.startsWith(`callgrind.${child.pid}.`) && f.endsWith('-01'));
    const totals = file && /^totals: (\d+)$/m.exec(readFileSync(join(outDir, file), 'utf8'));
    if (!totals) throw new Error('callgrind wrote no totals');
    return Number(totals[1]) / REQUESTS;
  } finally {
    child.kill('SIGKILL');
  }
}

const counts = Object.fromEntries(Object.keys(APPS).map((name) => [name, []]));
const jobs = [];
for (let i = 0; i < REPEATS; i++) for (const name of Object.keys(APPS)) jobs.push(name);
try {
  for (let i = 0; i < jobs.length; i += 2) {
    const pair = jobs.slice(i, i + 2);
    const results = await Promise.all(pair.map((name) => measure(APPS[name].args)));
    pair.forEach((name, j) => counts[name].push(results[j]));
  }
} finally {
  rmSync(outDir, { recursive: true, force: true });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const k = (x) => `${(x / 1000).toFixed(0)}k`;
console.log(
  `node ${process.version}, ${os.platform()}; GET ${PATH}, ${REQUESTS} counted requests after ${WARMUP_REQUESTS}`,
);
console.log('| app | median instructions per request | all runs |');
console.log('|---|---|---|');
for (const [name, app] of Object.entries(APPS))
  console.log(`| ${app.label} | ${k(median(counts[name]))} | ${counts[name].map(k).join(', ')} |`);
const live = median(counts.live);
const als = median(counts.alsScope);
const pinned = median(counts.pinned);
const pct = (x) => `${(x * 100).toFixed(1)} %`;
console.log(`pinned / live − 1: ${pct(pinned / live - 1)}`);
console.log(`AsyncLocalStorage scope alone / live − 1: ${pct(als / live - 1)}`);
console.log(
  `pinned / AsyncLocalStorage scope alone − 1 (what Vane adds to the async context): ${pct(pinned / als - 1)}`,
);
