#!/usr/bin/env node
// Requests per second of an Express route behind requireFlag('new-pricing', { ab: true })
// against the same app's unguarded route, in one run (`npm run bench` in libs/express, on
// the built packages; `--quick` for a short run). Three processes: the local server (its
// CLI, on loopback), the app (bench/app.mjs) and this one (autocannon). Measured:
//  1. 1,000 returning users (user ids cycled): GET /open, /noop (a middleware that only
//     calls next(): the floor of any guard), /floor (the least an A/B guard with its answers
//     in memory does, written by hand: the app's abContext, a Map lookup, next()), /flag (a plain flag), /ab (A/B,
//     answers cached with the default options), /ab-long (the same, answers kept 10
//     minutes: every request a hit), /ab-client (no guard: the handler awaits
//     client.evaluateAb() with the same cache, to tell the client's share from the
//     adapter's), /ab-uncached (abCache: false, one evaluate-ab call
//     per request, as before the cache), and /flag-live, /ab-live: the plain and the A/B
//     guard (answers kept 10 minutes) with consistentReads: false, to tell the cost of the
//     revision each request is pinned to from the guards' own. With the default maxAgeMs (60 s) each user's
//     answer is asked again once a minute: in this run, where /ab serves a fifth of the
//     time, that is about one request in ten of /ab;
//  2. every request a new user: /ab against /ab-uncached (every request is a call either
//     way: what the cache costs when it never hits), /open beside them;
//  3. the memory of the cache full at its default bound (10,000 answers), measured in the
//     app: heap after a full GC with the cache full, minus the heap once a new revision
//     has emptied it;
//  4. the CPU cost of a cached answer, free of network noise: `evaluateAb` for a returning
//     user in a loop in this process, against `client.flag()` awaited the same way; and
//     `evaluateAbCached` (what the guards call first), against `client.flag()`, both synchronous.
// The machine is shared and its speed drifts, so routes are measured in short rounds back
// to back, in a new random order each round, and each figure is the median of the per-round
// ratios.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { VaneClient } from '@vane/client';
import { AB_CACHE_DEFAULTS } from '@vane/client/adapter';
import { BENCH_KEY, BENCH_SEED } from './seed.mjs';

const QUICK = process.argv.includes('--quick');
const ROUNDS = QUICK ? 3 : 30;
const DURATION_S = 1;
const WARMUP_S = QUICK ? 1 : 3;
const CONNECTIONS = 10;
const USERS = 1000;
const KEY = BENCH_KEY;
const TOKEN = 'bench-admin-token';
const WAIT_MS = 15_000;

const dir = mkdtempSync(join(tmpdir(), 'vane-bench-express-'));
const seedPath = join(dir, 'bench.seed.json');
writeFileSync(seedPath, JSON.stringify(BENCH_SEED));

/** Spawns a node process and resolves with it once `pattern` matches its stdout. */
function start(args, env, pattern) {
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const ready = new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start within ${WAIT_MS} ms`)), WAIT_MS);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = pattern.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
  return { child, ready };
}

function call(port, method, path, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: false,
        headers: { 'content-type': 'application/json', ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          if (res.statusCode >= 300) reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`));
          else resolve(res.headers['content-type']?.startsWith('application/json') ? JSON.parse(text) : text);
        });
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const quartiles = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return [s[Math.floor(0.25 * (s.length - 1))], s[Math.ceil(0.75 * (s.length - 1))]];
};
const pct = (x) => `${(x * 100).toFixed(1)} %`;

const server = start(
  [fileURLToPath(new URL('../../server/dist/cjs/cli.js', import.meta.url)), '--seed', seedPath, '--port', '0'],
  // The token through the environment: the server refuses one on its command line.
  { VANE_ADMIN_TOKEN: TOKEN },
  /listening on http:\/\/[^:]+:(\d+)/,
);
const serverPort = Number((await server.ready)[1]);
const app = start(
  ['--expose-gc', fileURLToPath(new URL('./app.mjs', import.meta.url))],
  { BENCH_VANE_URL: `http://bench.localhost:${serverPort}`, BENCH_VANE_KEY: KEY },
  /\{"port":(\d+)\}/,
);
const appPort = Number((await app.ready)[1]);
// Whatever happens below, the two children go with this process.
process.on('exit', () => {
  app.child.kill('SIGTERM');
  server.child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

let sequence = 0;
/** `returning`: user ids cycle over USERS; `new`: every request a user never seen. */
const userOf = { returning: () => `u-${sequence++ % USERS}`, new: () => `new-${sequence++}` };

function run(path, users, duration, amount) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `http://127.0.0.1:${appPort}`,
        connections: CONNECTIONS,
        ...(amount === undefined ? { duration } : { amount }),
        pipelining: 1,
        requests: [
          {
            method: 'GET',
            path,
            setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'x-user-id': userOf[users]() } }),
          },
        ],
      },
      (err, result) => {
        if (err) return reject(err);
        if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0)
          return reject(
            new Error(
              `${path}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`,
            ),
          );
        resolve(result);
      },
    );
  });
}

/** A fixed-seed generator (mulberry32): the same orders in every run. */
function prng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = prng(24);

/**
 * `routes` in a random order (Fisher–Yates): over the rounds every route follows every other
 * about equally often. A fixed rotation always put the same route before a given one, and a
 * route that leaves work behind (garbage, the local server busy) then taxed the same neighbour.
 */
function shuffled(routes) {
  const out = [...routes];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** The app's CPU time so far, in microseconds. */
const appCpu = async () => (await call(appPort, 'GET', '/cpu')).micros;

/**
 * Measures `routes` in ROUNDS rounds (a new random order each round); returns per-route lists of req/s,
 * p99 and the app's CPU time per request (µs: what the app spends on one, whatever the
 * machine's load does to the wall clock).
 */
async function rounds(routes, users) {
  for (const path of routes) await run(path, users, WARMUP_S);
  const rps = Object.fromEntries(routes.map((r) => [r, []]));
  const p99 = Object.fromEntries(routes.map((r) => [r, []]));
  const cpu = Object.fromEntries(routes.map((r) => [r, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const path of shuffled(routes)) {
      const before = await appCpu();
      const r = await run(path, users, DURATION_S);
      cpu[path].push(((await appCpu()) - before) / r.requests.total);
      rps[path].push(r.requests.average);
      p99[path].push(r.latency.p99);
    }
  }
  return { rps, p99, cpu };
}

const ratios = (rps, path, base) => rps[path].map((x, i) => x / rps[base][i]);

function table(title, { rps, p99, cpu }, labels, base) {
  console.log(`\n${title}`);
  console.log(
    `| route | median req/s | min–max req/s | median p99 | req/s ÷ ${base}, median of rounds (quartiles) | app CPU per request | ${base} CPU ÷ route CPU |`,
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const [path, label] of Object.entries(labels)) {
    const xs = rps[path];
    const r = ratios(rps, path, base);
    const [q1, q3] = quartiles(r);
    const c = cpu[base].map((x, i) => x / cpu[path][i]);
    console.log(
      `| ${label} | ${Math.round(median(xs))} | ${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))} | ${median(p99[path])} ms | ${pct(median(r))} (${pct(q1)}–${pct(q3)}) | ${median(cpu[path]).toFixed(0)} µs | ${pct(median(c))} |`,
    );
  }
}

console.log(
  `node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, load average ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
console.log(
  `${ROUNDS} rounds of ${DURATION_S} s per route, ${CONNECTIONS} connections, after ${WARMUP_S} s warmup each; local server, app and autocannon in 3 processes`,
);

// Every user comes once before anything is measured: from then on, each one is returning.
sequence = 0;
for (const path of ['/ab', '/ab-long', '/ab-live']) {
  sequence = 0;
  await run(path, 'returning', undefined, USERS);
}
const primed = await call(appPort, 'GET', '/stats');
if (primed.cache.size !== USERS || primed.long.size !== USERS || primed.live.size !== USERS)
  throw new Error(
    `expected ${USERS} cached answers, got ${primed.cache.size}, ${primed.long.size} and ${primed.live.size}`,
  );
const returning = await rounds(
  ['/open', '/noop', '/floor', '/flag', '/ab', '/ab-long', '/ab-client', '/ab-uncached', '/flag-live', '/ab-live'],
  'returning',
);
const afterReturning = await call(appPort, 'GET', '/stats');
table(
  `1. ${USERS} returning users`,
  returning,
  {
    '/open': 'GET /open (no guard)',
    '/noop': 'GET /noop (a middleware that only calls next(): what any guard costs in Express)',
    '/floor': 'GET /floor (the least an in-memory A/B guard does, by hand: abContext, a Map lookup, next())',
    '/flag': "GET /flag (requireFlag('new-checkout'))",
    '/ab': "GET /ab (requireFlag('new-pricing', { ab: true }), cache on, default options)",
    '/ab-long': 'GET /ab-long (the same, answers kept 10 minutes)',
    '/ab-client': 'GET /ab-client (handler awaits client.evaluateAb(), answers kept 10 minutes)',
    '/ab-uncached': 'GET /ab-uncached (the same, abCache: false)',
    '/flag-live': "GET /flag-live (requireFlag('new-checkout'), consistentReads: false)",
    '/ab-live': 'GET /ab-live (the A/B guard, answers kept 10 minutes, consistentReads: false)',
  },
  '/open',
);
const abRatio = median(ratios(returning.rps, '/ab-long', '/open'));
const noopRatio = median(ratios(returning.rps, '/noop', '/open'));
const abVsNoop = median(ratios(returning.rps, '/ab-long', '/noop'));
const floorRatio = median(ratios(returning.rps, '/floor', '/open'));
const abVsFloor = median(ratios(returning.rps, '/ab-long', '/floor'));
const abCpuRatio = median(returning.cpu['/open'].map((x, i) => x / returning.cpu['/ab-long'][i]));
console.log(
  `a no-op middleware / unguarded: ${pct(noopRatio)}; A/B route (/ab-long) / the no-op middleware route: ${pct(abVsNoop)}`,
);
console.log(
  `the hand-written in-memory A/B guard (/floor) / unguarded: ${pct(floorRatio)}; A/B route (/ab-long) / /floor: ${pct(abVsFloor)}`,
);
console.log(`cache counters after phase 1, /ab: ${JSON.stringify(afterReturning.cache)}`);
console.log(`cache counters after phase 1, /ab-long: ${JSON.stringify(afterReturning.long)}`);
console.log(
  `A/B route, every answer cached (/ab-long) / unguarded: ${pct(abRatio)} of the req/s; target ≥ 90 %: ${abRatio >= 0.9 ? 'met' : 'NOT MET'} (by the app's CPU per request: ${pct(abCpuRatio)})`,
);
const cpuOver = (path, base) => {
  const d = median(returning.cpu[path].map((x, i) => x - returning.cpu[base][i]));
  return `${d >= 0 ? '+' : '−'}${Math.abs(d).toFixed(1)}`;
};
console.log(
  `app CPU per request above /open, medians of the rounds: /noop ${cpuOver('/noop', '/open')} µs, /floor ${cpuOver('/floor', '/open')} µs, /flag ${cpuOver('/flag', '/open')} µs, /ab-long ${cpuOver('/ab-long', '/open')} µs, /flag-live ${cpuOver('/flag-live', '/open')} µs, /ab-live ${cpuOver('/ab-live', '/open')} µs; /ab-long above /flag ${cpuOver('/ab-long', '/flag')} µs`,
);

const fresh = await rounds(['/open', '/ab', '/ab-uncached'], 'new');
table(
  '2. every request a new user',
  fresh,
  {
    '/open': 'GET /open (no guard)',
    '/ab': 'GET /ab (cache on: every request a miss)',
    '/ab-uncached': 'GET /ab-uncached (abCache: false)',
  },
  '/open',
);
const newRatio = median(fresh.rps['/ab'].map((x, i) => x / fresh.rps['/ab-uncached'][i]));
const [n1, n3] = quartiles(fresh.rps['/ab'].map((x, i) => x / fresh.rps['/ab-uncached'][i]));
console.log(
  `new users, cache on / cache off: ${pct(newRatio)} (quartiles ${pct(n1)}–${pct(n3)}); no regression: ${newRatio >= 0.95 ? 'yes' : 'CHECK'}`,
);

// 3. New users fill the cache to its default bound (and past it: the least recently used go); a new
// revision then empties it.
const filled = await call(appPort, 'GET', '/stats');
await run('/ab', 'new', undefined, Math.max(0, AB_CACHE_DEFAULTS.maxEntries - filled.cache.size) + 1000);
const full = await call(appPort, 'GET', '/heap');
if (full.cache.size !== AB_CACHE_DEFAULTS.maxEntries) throw new Error(`the cache holds ${full.cache.size} answers`);
await call(
  serverPort,
  'PUT',
  '/admin/v1/services/bench/configs/bench.value',
  { value: 1 },
  { authorization: `Bearer ${TOKEN}` },
);
const deadline = Date.now() + WAIT_MS;
while ((await call(appPort, 'GET', '/stats')).revision === full.revision) {
  if (Date.now() > deadline) throw new Error('the app did not get the new revision');
  await new Promise((resolve) => setTimeout(resolve, 10));
}
await call(appPort, 'GET', '/ab', undefined, { 'x-user-id': 'after-revision' }); // the first evaluation at the new revision empties the cache
const empty = await call(appPort, 'GET', '/heap');
const measured = full.heapUsed - empty.heapUsed;
console.log('\n3. memory of the cache at its default bound');
console.log(
  `answers kept: ${full.cache.size} (evictions so far ${full.cache.evictions}); estimated by the cache: ${(full.cache.bytes / 1e6).toFixed(2)} MB (${Math.round(full.cache.bytes / full.cache.size)} B per answer); measured (heap full − heap emptied, after GC): ${(measured / 1e6).toFixed(2)} MB (${Math.round(measured / full.cache.size)} B per answer); after: ${empty.cache.size} kept, ${empty.cache.invalidations} invalidation(s)`,
);
// 4. In this process: a client of its own on the same local server, 1,000 users answered once.
const client = await VaneClient.create({
  baseUrl: `http://bench.localhost:${serverPort}`,
  apiKey: KEY,
  logger: { warn: () => undefined, error: (m) => console.error(m) },
});
const contexts = Array.from({ length: USERS }, (_, i) => ({
  userId: `u-${i}`,
  attributes: { country: 'DE', plan: 'pro' },
}));
for (const context of contexts) await client.evaluateAb(['new-pricing'], context);
const LOOPS = QUICK ? 100_000 : 1_000_000;
const perCall = async (body) => {
  const t = performance.now();
  for (let i = 0; i < LOOPS; i++) await body(i);
  return ((performance.now() - t) * 1e6) / LOOPS;
};
const perSyncCall = (body) => {
  const t = performance.now();
  let on = 0;
  for (let i = 0; i < LOOPS; i++) if (body(i)) on++;
  if (on !== LOOPS) throw new Error(`${LOOPS - on} answers were not on`);
  return ((performance.now() - t) * 1e6) / LOOPS;
};
const cachedNs = [];
const flagNs = [];
const syncNs = [];
const syncFlagNs = [];
for (let round = 0; round < 7; round++) {
  cachedNs.push(await perCall((i) => client.evaluateAb(['new-pricing'], contexts[i % USERS])));
  flagNs.push(await perCall(() => Promise.resolve(client.flag('new-checkout'))));
  syncNs.push(perSyncCall((i) => client.evaluateAbCached(['new-pricing'], contexts[i % USERS])?.['new-pricing']));
  syncFlagNs.push(perSyncCall(() => client.flag('new-checkout')));
}
const misses = client.abCacheStats.misses;
await client.close();
const requestNs = 1e9 / median(returning.rps['/open']);
console.log('\n4. CPU cost of a cached answer (this process, 7 alternating rounds, medians)');
console.log(
  `await evaluateAb(['new-pricing'], returning user): ${Math.round(median(cachedNs))} ns per call (misses after priming: ${misses - USERS}); await Promise.resolve(client.flag()): ${Math.round(median(flagNs))} ns; the difference is ${(((median(cachedNs) - median(flagNs)) / requestNs) * 100).toFixed(1)} % of one unguarded request (${(requestNs / 1000).toFixed(0)} µs at the median req/s)`,
);
console.log(
  `evaluateAbCached(['new-pricing'], returning user), synchronous: ${Math.round(median(syncNs))} ns per call; client.flag(): ${Math.round(median(syncFlagNs))} ns; the difference is ${(((median(syncNs) - median(syncFlagNs)) / requestNs) * 100).toFixed(2)} % of one unguarded request`,
);

// The app first, so it does not log its stream being cut by the server going away.
const exited = new Promise((resolve) => app.child.once('exit', resolve));
app.child.kill('SIGTERM');
await exited;
process.exit(0);
