#!/usr/bin/env node
// Requests per second of a Fastify route behind a plain flag and behind an A/B flag, against the same
// route unguarded, measured in one run (`npm run bench` in libs/fastify, on the built packages;
// `--quick` for a short run), in Fastify's own benchmark style: autocannon, the app in its own process.
// The local Vane server runs as users run it, the CLI in a process of its own; the load (autocannon)
// in this one. The A/B route is called as 1,000 returning users (x-user-id cycling through 1,000 ids).
// The machine is shared and its speed drifts by tens of per cent within a minute, so the routes are
// measured in many short back-to-back rounds (order rotating), each round gives a ratio, and the figure
// is the median of those ratios; the median req/s are given beside it.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import vane from '@vane/fastify';

const QUICK = process.argv.includes('--quick');
const ROUNDS = QUICK ? 3 : 12;
const DURATION_S = QUICK ? 1 : 2;
const WARMUP_S = QUICK ? 1 : 3;
const CONNECTIONS = 10;
const USERS = 1_000;
const KEY = 'svs_bench_fastify_secret';

const seedDir = mkdtempSync(join(os.tmpdir(), 'vane-fastify-bench-'));
const seed = join(seedDir, 'seed.json');
writeFileSync(
  seed,
  JSON.stringify({
    tenant: { ab_addon: true },
    services: {
      bench: {
        kind: 'backend',
        keys: [KEY],
        flags: {
          'bench-flag': { is_enabled: true },
          'bench-ab': { is_enabled: true, ab: { percentage: 100, salt: 'bench', cohorts: [] } },
        },
      },
    },
  }),
);

/** Starts `node args`, resolves with the first stdout match of `pattern` (15 s at most). */
function startProcess(args, pattern, env = {}) {
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const ready = new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${args[0]} did not start within 15 s`)), 15_000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = pattern.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.on('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)));
  });
  return { child, ready };
}

const cli = fileURLToPath(new URL('../../server/dist/cjs/cli.js', import.meta.url));
const server = startProcess([cli, '--seed', seed, '--port', '0'], /listening on (http:\/\/127\.0\.0\.1:\d+)/);
const serverUrl = await server.ready;
const app = startProcess([fileURLToPath(new URL('./app.mjs', import.meta.url))], /\{"port":(\d+)\}/, {
  VANE_BASE_URL: serverUrl.replace('127.0.0.1', 'bench.localhost'),
  VANE_API_KEY: KEY,
});
const port = Number(await app.ready);

let user = 0;
const withUser = (req) => ({ ...req, headers: { ...req.headers, 'x-user-id': `user-${user++ % USERS}` } });
const run = (path, duration) =>
  autocannon({
    url: `http://127.0.0.1:${port}${path}`,
    connections: CONNECTIONS,
    duration,
    pipelining: 1,
    requests: path === '/ab' ? [{ setupRequest: withUser }] : undefined,
  });

/** The app's CPU time so far, in microseconds. */
const appCpu = async () => (await (await fetch(`http://127.0.0.1:${port}/cpu`)).json()).micros;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const ROUTES = ['open', 'plain', 'ab'];
for (const name of ROUTES) await run(`/${name}`, WARMUP_S);
const rps = { open: [], plain: [], ab: [] };
const p99 = { open: [], plain: [], ab: [] };
// The app's CPU time per request (µs): what it spends on one, whatever the machine's load does to the wall clock.
const cpu = { open: [], plain: [], ab: [] };
const ratios = { plain: [], ab: [] };
const ORDERS = [
  ['open', 'plain', 'ab'],
  ['plain', 'ab', 'open'],
  ['ab', 'open', 'plain'],
];
for (let round = 0; round < ROUNDS; round++) {
  const got = {};
  for (const name of ORDERS[round % ORDERS.length]) {
    const before = await appCpu();
    const r = await run(`/${name}`, DURATION_S);
    cpu[name].push(((await appCpu()) - before) / r.requests.total);
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`/${name}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
    got[name] = r.requests.average;
    rps[name].push(r.requests.average);
    p99[name].push(r.latency.p99);
  }
  ratios.plain.push(got.plain / got.open);
  ratios.ab.push(got.ab / got.open);
}

// The plain guard's own CPU cost, free of network noise: the hook app.vane.requireFlag() returns, called
// in a loop on a fresh request object each time (as Fastify passes it), against the same loop calling
// a hook that only calls done().
const inProcess = Fastify();
await inProcess.register(vane, {
  baseUrl: serverUrl.replace('127.0.0.1', 'bench.localhost'),
  apiKey: KEY,
  stream: false,
  startupCheck: 'off',
});
const guard = inProcess.vane.requireFlag('bench-flag');
const noop = (_request, _reply, done) => done();
const CALLS = 2_000_000;
let sink = 0;
const done = () => void sink++;
const timeLoop = (hook) => {
  for (let i = 0; i < 200_000; i++) hook({}, {}, done);
  const t = performance.now();
  for (let i = 0; i < CALLS; i++) hook({}, {}, done);
  return ((performance.now() - t) * 1e6) / CALLS;
};
const guardNs = timeLoop(guard);
const noopNs = timeLoop(noop);
await inProcess.close();
if (sink !== 2 * (CALLS + 200_000)) throw new Error('a hook did not call done()');

app.child.kill('SIGTERM');
server.child.kill('SIGTERM');
rmSync(seedDir, { recursive: true, force: true });

const quartiles = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => (s[Math.floor(p * (s.length - 1))] * 100).toFixed(1);
  return `${q(0.25)} % – ${q(0.75)} %`;
};
console.log(
  `node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${os.platform()}, load average ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
console.log(
  `${ROUNDS} rounds (one per route, order rotating) of ${DURATION_S} s per route, ${CONNECTIONS} connections, after ${WARMUP_S} s warmup each`,
);
const LABELS = {
  open: 'GET /open (no guard)',
  plain: "GET /plain (config.vane: { flags: 'bench-flag' }, on)",
  ab: `GET /ab (config.vane: { flags: 'bench-ab', ab: true }, ${USERS.toLocaleString('en')} returning users)`,
};
console.log(
  '| route | median req/s | min–max req/s | median p99 latency | ÷ unguarded (median of rounds) | app CPU per request | unguarded CPU ÷ route CPU (median of rounds) |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const name of ROUTES) {
  const xs = rps[name];
  const ratio =
    name === 'open' ? '100 %' : `${(median(ratios[name]) * 100).toFixed(1)} % (quartiles ${quartiles(ratios[name])})`;
  const cpuRatio = median(cpu.open.map((x, i) => x / cpu[name][i]));
  console.log(
    `| ${LABELS[name]} | ${Math.round(median(xs))} | ${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))} | ${median(p99[name])} ms | ${ratio} | ${median(cpu[name]).toFixed(0)} µs | ${(cpuRatio * 100).toFixed(1)} % |`,
  );
}
const requestNs = 1e9 / median(rps.open);
console.log(
  `plain guard hook: ${guardNs.toFixed(0)} ns per call (a hook that only calls done(): ${noopNs.toFixed(0)} ns), ${(((guardNs - noopNs) / requestNs) * 100).toFixed(3)} % of one unguarded request (${(requestNs / 1000).toFixed(0)} µs at the median req/s)`,
);
