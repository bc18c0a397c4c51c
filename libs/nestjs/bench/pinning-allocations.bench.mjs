#!/usr/bin/env node
// What one revision per request (#21) allocates: bytes per GET /guarded request with pinning
// on (the default) against `consistentReads: false`, from V8's sampling heap profiler with
// short-lived objects included, and the functions that allocate the difference.
//
// Why a third pinning benchmark: requests per second (pinning.bench.mjs) drift by more on a
// shared machine than the few per cent pinning costs, and instruction counts
// (pinning-instructions.bench.mjs) move with when V8 compiles and collects inside the counted
// window. What a warm request allocates does not depend on the machine's load nor on timing:
// repeated runs agree within about 1 %, so it says exactly what a change to the pinned path
// adds or saves in memory traffic (the young-generation collector's work grows with it).
//
// Each app runs in its own process (bench/app.mjs --allocation-sampling), is warmed up past the
// JIT's tiers (WARMUP requests), then samples REQUESTS requests on one connection.
import autocannon from 'autocannon';
import { startApp } from './start-app.mjs';

const QUICK = process.argv.includes('--quick');
const WARMUP = QUICK ? 3000 : 10_000;
const REQUESTS = QUICK ? 2000 : 5000;
const PATH = '/guarded';
/** A site is listed when the two apps' bytes per request there differ by at least this much. */
const SHOWN_BYTES = 24;

/** Sends `amount` requests on one connection (every request then does the same work). */
async function load(port, amount) {
  const r = await autocannon({ url: `http://127.0.0.1:${port}${PATH}`, connections: 1, amount, timeout: 60 });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${r.non2xx} non-2xx answers, ${r.errors} errors`);
}

/** Bytes allocated per request, in total and by allocating function ("name file:line"). */
async function allocationsPerRequest(args) {
  const app = startApp(['--allocation-sampling', ...args]);
  const { child } = app;
  try {
    const port = await app.port;
    await load(port, WARMUP);
    await (await fetch(`http://127.0.0.1:${port}/__allocations/start`)).text();
    await load(port, REQUESTS);
    const profile = await (await fetch(`http://127.0.0.1:${port}/__allocations/stop`)).json();
    const bySite = new Map();
    let total = 0;
    const walk = (node) => {
      const { functionName, url, lineNumber } = node.callFrame;
      const file = url.replace(/^.*node_modules\//, '').replace(/^.*\/libs\//, 'libs/');
      const site = `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
      total += node.selfSize;
      if (node.selfSize > 0) bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize / REQUESTS);
      node.children.forEach(walk);
    };
    walk(profile.head);
    return { total: total / REQUESTS, bySite };
  } finally {
    child.kill('SIGKILL');
  }
}

const live = await allocationsPerRequest(['--no-pinning']);
const pinned = await allocationsPerRequest([]);
console.log(`node ${process.version}; GET ${PATH}, ${REQUESTS} sampled requests after ${WARMUP}`);
console.log('| app | bytes allocated per request |');
console.log('|---|---:|');
console.log(`| live reads (\`consistentReads: false\`) | ${live.total.toFixed(0)} |`);
console.log(`| pinned (the default) | ${pinned.total.toFixed(0)} |`);
console.log(
  `pinned / live − 1: ${((pinned.total / live.total - 1) * 100).toFixed(1)} % (${(pinned.total - live.total).toFixed(0)} bytes)`,
);
console.log(`\nWhere they differ (bytes per request, pinned − live; sites of ${SHOWN_BYTES} bytes or more):`);
const sites = new Set([...live.bySite.keys(), ...pinned.bySite.keys()]);
const diffs = [...sites]
  .map((site) => [site, (pinned.bySite.get(site) ?? 0) - (live.bySite.get(site) ?? 0)])
  .filter(([, d]) => Math.abs(d) >= SHOWN_BYTES)
  .sort((a, b) => b[1] - a[1]);
for (const [site, d] of diffs) console.log(`${d >= 0 ? '+' : ''}${d.toFixed(0).padStart(5)}  ${site}`);
