#!/usr/bin/env node
// Requests per second of a route behind @FeatureFlag() against the same route
// unguarded, measured in one run (`npm run bench` in libs/nestjs, on the built
// packages; `--quick` for a short run). The app runs in its own process; the
// load (autocannon) in this one. The machine is shared and its speed drifts by
// tens of per cent within a minute, so the routes are measured in many short
// back-to-back pairs (order alternating), each pair gives a ratio, and the
// figure is the median of those ratios; the median req/s are given beside it.
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import 'reflect-metadata';
import { Reflector } from '@nestjs/core';
import { FeatureFlag, FeatureFlagGuard, VaneRequestFlags } from '@vane/nestjs';
import { VaneTestingBackend } from '@vane/nestjs/testing';
import autocannon from 'autocannon';
import { startApp } from './start-app.mjs';

const QUICK = process.argv.includes('--quick');
const PAIRS = QUICK ? 4 : 16;
const DURATION_S = QUICK ? 1 : 2;
const WARMUP_S = QUICK ? 1 : 3;
const CONNECTIONS = 10;

const { child, port: started } = startApp();
const port = await started;

const run = (path, duration) =>
  autocannon({ url: `http://127.0.0.1:${port}${path}`, connections: CONNECTIONS, duration, pipelining: 1 });

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

await run('/open', WARMUP_S);
await run('/guarded', WARMUP_S);
await run('/noop', WARMUP_S);
const results = { open: [], guarded: [], noop: [] };
const p99 = { open: [], guarded: [], noop: [] };
const ratios = [];
const noopRatios = [];
const ORDERS = [
  ['open', 'guarded', 'noop'],
  ['guarded', 'open', 'noop'],
  ['noop', 'open', 'guarded'],
  ['noop', 'guarded', 'open'],
];
for (let pair = 0; pair < PAIRS; pair++) {
  // Rotate the order, so no route always gets the warmer machine.
  const order = ORDERS[pair % ORDERS.length];
  const rps = {};
  for (const name of order) {
    const r = await run(`/${name}`, DURATION_S);
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`/${name}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
    rps[name] = r.requests.average;
    results[name].push(r.requests.average);
    p99[name].push(r.latency.p99);
  }
  ratios.push(rps.guarded / rps.open);
  noopRatios.push(rps.noop / rps.open);
}
child.kill('SIGTERM');

const ratio = median(ratios) * 100;
const sorted = [...ratios].sort((a, b) => a - b);
const quartile = (q) => (sorted[Math.floor(q * (sorted.length - 1))] * 100).toFixed(1);
console.log(
  `node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${os.platform()}, load average ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
console.log(
  `${PAIRS} back-to-back rounds (one per route) of ${DURATION_S} s per route, ${CONNECTIONS} connections, after ${WARMUP_S} s warmup each`,
);
console.log('| route | median req/s | min–max req/s | median p99 latency |');
console.log('|---|---|---|---|');
const LABELS = {
  open: 'GET /open (no guard)',
  guarded: "GET /guarded (@FeatureFlag('bench-flag'), flag on)",
  noop: 'GET /noop (a guard returning true)',
};
for (const name of ['open', 'guarded', 'noop']) {
  const xs = results[name];
  console.log(
    `| ${LABELS[name]} | ${Math.round(median(xs))} | ${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))} | ${median(p99[name])} ms |`,
  );
}
console.log(
  `guarded / unguarded, median of the ${PAIRS} pair ratios: ${ratio.toFixed(1)} % (quartiles ${quartile(0.25)} % – ${quartile(0.75)} %; target ≥ 97 %)`,
);
console.log(`no-op guard / unguarded, same run: ${(median(noopRatios) * 100).toFixed(1)} %`);
console.log(ratio >= 97 ? 'target met' : 'BELOW TARGET');

// The guard's own CPU cost, free of network noise: canActivate() on the same
// decorated handler, called in a loop, against an empty loop.
const backend = new VaneTestingBackend({ flags: { 'bench-flag': true } });
const client = await backend.createClient();
class Target {
  handler() {}
}
FeatureFlag('bench-flag')(Target.prototype, 'handler', Object.getOwnPropertyDescriptor(Target.prototype, 'handler'));
const options = {};
const guard = new FeatureFlagGuard(
  new Reflector(),
  client,
  new VaneRequestFlags(client, new Reflector(), () => undefined),
  options,
);
// A fresh request per call, as in a server: the guard remembers requests it let through.
const contextFor = (req) => ({
  getClass: () => Target,
  getHandler: () => Target.prototype.handler,
  getType: () => 'http',
  switchToHttp: () => ({ getRequest: () => req }),
});
const CALLS = 2_000_000;
let sink = 0;
for (let i = 0; i < 200_000; i++) sink += guard.canActivate(contextFor({})) ? 1 : 0;
let t = performance.now();
for (let i = 0; i < CALLS; i++) sink += guard.canActivate(contextFor({})) ? 1 : 0;
const guardNs = ((performance.now() - t) * 1e6) / CALLS;
t = performance.now();
for (let i = 0; i < CALLS; i++) sink += contextFor({}).getHandler() ? 1 : 0;
const loopNs = ((performance.now() - t) * 1e6) / CALLS;
await client.close();
const requestNs = 1e9 / median(results.open);
console.log(
  `FeatureFlagGuard.canActivate(): ${guardNs.toFixed(0)} ns per call (a loop building the same context: ${loopNs.toFixed(0)} ns), ${((guardNs / requestNs) * 100).toFixed(3)} % of one unguarded request (${(requestNs / 1000).toFixed(0)} µs at the median req/s)${sink === 0 ? '' : ''}`,
);
