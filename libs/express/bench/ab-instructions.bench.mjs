#!/usr/bin/env node
// The routes of bench/app.mjs counted in machine instructions rather than
// timed (#24): the app runs under valgrind's callgrind, one process per
// route, is warmed up with 3,000 requests of the route (1,000 returning
// users, as in ab-cache.bench.mjs), then the instructions its main thread
// executes for the next 1,000 requests are counted. Only the main thread:
// V8 compiles and marks on threads of its own, in lumps that are not
// per-request work. Requests per second of one route drift 20 % from round
// to round on a shared machine; these counts repeat within a few per cent
// (a major garbage collection inside the window adds to one run). They are
// not time (a cache miss counts as little as an add), but a route doing
// 16 % more work than another serves about 86 % of its requests.
// Needs `valgrind` (Debian package valgrind); skips with a message without it.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startLocalServer } from '@vane/local-server';

const QUICK = process.argv.includes('--quick');
const WARMUP_REQUESTS = QUICK ? 1000 : 3000;
const REQUESTS = QUICK ? 500 : 1000;
const USERS = 1000;
const ROUTES = ['/open', '/noop', '/flag-live', '/ab-live', '/flag', '/ab-long'];
const KEY = 'svs_bench_express_secret';

try {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
} catch {
  console.log('valgrind is not installed: skipped (Debian: apt-get install valgrind)');
  process.exit(0);
}

const server = await startLocalServer({
  port: 0,
  seed: {
    tenant: { ab_addon: true },
    services: {
      bench: {
        kind: 'backend',
        keys: [KEY],
        configs: { 'bench.value': 0 },
        flags: {
          'new-checkout': { is_enabled: true },
          // Everyone in DE (every bench user): the guard lets each request through.
          'new-pricing': {
            is_enabled: true,
            ab: {
              percentage: 0,
              salt: 'np-bench',
              cohorts: [{ conditions: [{ attribute: 'country', op: 'eq', values: ['DE'] }], percentage: 100 }],
            },
          },
        },
      },
    },
  },
});
const outDir = mkdtempSync(join(os.tmpdir(), 'vane-callgrind-express-'));

/** Main-thread instructions per request of `path`, in an app of its own. */
async function measure(path) {
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--smc-check=all', // V8 writes and patches its own machine code
      '--instr-atstart=no',
      '--separate-threads=yes',
      `--callgrind-out-file=${join(outDir, 'callgrind.%p')}`,
      process.execPath,
      fileURLToPath(new URL('./app.mjs', import.meta.url)),
    ],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, BENCH_VANE_URL: server.baseUrl('bench'), BENCH_VANE_KEY: KEY },
    },
  );
  try {
    const port = await new Promise((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error('the app did not start under valgrind within 180 s')), 180_000);
      child.stdout.on('data', (chunk) => {
        out += chunk;
        const match = /\{"port":(\d+)\}/.exec(out);
        if (match) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      });
      child.on('exit', (code) => reject(new Error(`the app exited with ${code}`)));
    });
    let sequence = 0;
    const load = async (amount) => {
      const r = await autocannon({
        url: `http://127.0.0.1:${port}`,
        connections: 4,
        amount,
        timeout: 120,
        requests: [
          {
            method: 'GET',
            path,
            setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'x-user-id': `u-${sequence++ % USERS}` } }),
          },
        ],
      });
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${path}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
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

const counts = {};
try {
  // Two at a time: one per core.
  for (let i = 0; i < ROUTES.length; i += 2) {
    const pair = ROUTES.slice(i, i + 2);
    const results = await Promise.all(pair.map(measure));
    pair.forEach((path, j) => (counts[path] = results[j]));
  }
} finally {
  rmSync(outDir, { recursive: true, force: true });
  await server.close();
}

const open = counts['/open'];
console.log(
  `node ${process.version}, ${os.platform()}; ${REQUESTS} counted requests per route after ${WARMUP_REQUESTS}, ${USERS} returning users`,
);
console.log('| route | instructions per request (main thread) | above /open |');
console.log('|---|---:|---:|');
for (const path of ROUTES)
  console.log(
    `| GET ${path} | ${(counts[path] / 1000).toFixed(0)}k | ${path === '/open' ? '—' : `${counts[path] >= open ? '+' : '−'}${(Math.abs(counts[path] / open - 1) * 100).toFixed(1)} %`} |`,
  );
console.log(
  `A/B route (/ab-long): ${((counts['/ab-long'] / open - 1) * 100).toFixed(1)} % more work than /open, which predicts ${((open / counts['/ab-long']) * 100).toFixed(1)} % of its requests/s (target ≥ 90 %)`,
);
