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
// With `--new-users`, every request is a user never seen before, on GET /ab
// (the cache on: every request a miss, the cache full at its default bound
// of 10,000 answers once warmed up) and GET /ab-uncached (abCache: false):
// what the cache costs when it never hits, each route in a process of its own.
// Needs `valgrind` (Debian package valgrind); skips with a message without it.
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startVaneServer } from '@vane/server';
import { mainThreadInstructionsPerRequest, twoAtATime, valgrindAvailable } from '../../../scripts/callgrind-count.mjs';
import { BENCH_KEY, BENCH_SEED } from './seed.mjs';

const QUICK = process.argv.includes('--quick');
const NEW_USERS = process.argv.includes('--new-users');
// New users: past the cache's default bound (10,000 answers), so that every counted miss evicts one.
const WARMUP_REQUESTS = NEW_USERS ? 11_000 : QUICK ? 1000 : 3000;
const REQUESTS = QUICK ? 500 : 1000;
const USERS = 1000;
const ROUTES = NEW_USERS
  ? ['/ab-uncached', '/ab']
  : ['/open', '/noop', '/floor', '/flag-live', '/ab-live', '/flag', '/ab-long'];
/** The user of the request after `sequence` others: 1,000 returning users, or (`--new-users`) one never seen. */
const userOf = (sequence) => (NEW_USERS ? `new-${sequence}` : `u-${sequence % USERS}`);

if (!valgrindAvailable()) {
  console.log('valgrind is not installed: skipped (Debian: apt-get install valgrind)');
  process.exit(0);
}

const server = await startVaneServer({ port: 0, seed: BENCH_SEED });
const counts = {};
try {
  const results = await twoAtATime(ROUTES, (path) => {
    let sequence = 0;
    return mainThreadInstructionsPerRequest({
      appArgs: ['--expose-gc', fileURLToPath(new URL('./app.mjs', import.meta.url))],
      env: { BENCH_VANE_URL: server.baseUrl('bench'), BENCH_VANE_KEY: BENCH_KEY },
      warmup: WARMUP_REQUESTS,
      counted: REQUESTS,
      // GET /heap collects garbage (twice): no full collection left over from the warm-up.
      beforeCount: async (port) => void (await (await fetch(`http://127.0.0.1:${port}/heap`)).text()),
      // 1,000 returning users, as in ab-cache.bench.mjs (or every request a new user).
      load: async (port, amount) => {
        const r = await autocannon({
          url: `http://127.0.0.1:${port}`,
          // One connection: every request a round trip of its own, so the event loop does the same work per
          // request whatever the machine's speed (with several, how many requests one turn serves varies).
          connections: 1,
          amount,
          timeout: 120,
          requests: [
            {
              method: 'GET',
              path,
              setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'x-user-id': userOf(sequence++) } }),
            },
          ],
        });
        if (r.non2xx > 0 || r.errors > 0) throw new Error(`${path}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
      },
    });
  });
  ROUTES.forEach((path, i) => (counts[path] = results[i]));
} finally {
  await server.close();
}

if (NEW_USERS) {
  const [off, on] = [counts['/ab-uncached'], counts['/ab']];
  console.log(
    `node ${process.version}, ${os.platform()}; ${REQUESTS} counted requests per route after ${WARMUP_REQUESTS}, every request a new user`,
  );
  console.log('| route | instructions per request (main thread) |');
  console.log('|---|---:|');
  console.log(`| GET /ab-uncached (abCache: false) | ${(off / 1000).toFixed(0)}k |`);
  console.log(`| GET /ab (cache on, every request a miss) | ${(on / 1000).toFixed(0)}k |`);
  console.log(
    `the cache on a miss: ${on >= off ? '+' : '−'}${(Math.abs(on / off - 1) * 100).toFixed(1)} % of the work (${((on - off) / 1000).toFixed(1)}k instructions per request)`,
  );
  process.exit(0);
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
