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
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { mainThreadInstructionsPerRequest, twoAtATime, valgrindAvailable } from '../../../scripts/callgrind-count.mjs';

const QUICK = process.argv.includes('--quick');
const WARMUP_REQUESTS = QUICK ? 1000 : 2000;
const REQUESTS = QUICK ? 500 : 1000;
const REPEATS = QUICK ? 1 : 3;
const PATH = '/guarded';

if (!valgrindAvailable()) {
  console.log('valgrind is not installed: skipped (Debian: apt-get install valgrind)');
  process.exit(0);
}

const APPS = {
  live: { args: ['--no-pinning'], label: 'live reads (`consistentReads: false`)' },
  alsScope: { args: ['--no-pinning', '--als-scope'], label: 'live reads + an AsyncLocalStorage scope per request' },
  pinned: { args: [], label: 'pinned (the default)' },
};

/** Sends `amount` GET requests to the app on `port`. */
async function load(port, amount) {
  // One connection: every request a round trip of its own, so the event loop does the same work per
  // request whatever the machine's speed (with several, how many requests one turn serves varies).
  const r = await autocannon({ url: `http://127.0.0.1:${port}${PATH}`, connections: 1, amount, timeout: 120 });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${r.non2xx} non-2xx answers, ${r.errors} errors`);
}

const jobs = [];
for (let i = 0; i < REPEATS; i++) jobs.push(...Object.keys(APPS));
const results = await twoAtATime(jobs, (name) =>
  mainThreadInstructionsPerRequest({
    appArgs: ['--expose-gc', fileURLToPath(new URL('./app.mjs', import.meta.url)), ...APPS[name].args],
    load,
    // GET /__gc collects garbage: no full collection left over from the warm-up.
    beforeCount: async (port) => void (await (await fetch(`http://127.0.0.1:${port}/__gc`)).text()),
    warmup: WARMUP_REQUESTS,
    counted: REQUESTS,
  }),
);
const counts = Object.fromEntries(Object.keys(APPS).map((name) => [name, []]));
jobs.forEach((name, i) => counts[name].push(results[i]));

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
