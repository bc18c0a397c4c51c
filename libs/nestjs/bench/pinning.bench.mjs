#!/usr/bin/env node
// What one revision per request (#21) costs a guarded route: requests per
// second of GET /guarded (behind @FeatureFlag()) in an app with pinning on
// (the default), against the same route in an app with `consistentReads:
// false`, and the unguarded route of that app, measured in one run (`npm run
// bench` in libs/nestjs, on the built packages; `--quick` for a short run).
// Each app runs in its own process: AsyncLocalStorage, once used, costs the
// whole process, so an app without pinning must not share one with an app
// that pins. The load (autocannon) runs in this process. The machine is
// shared and its speed drifts, so the routes are measured in many short
// back-to-back rounds (order rotating); each round gives a ratio, and the
// figure is the median of those ratios. Beside requests per second, the CPU
// time each app process spent per request (from /proc, user + system) is
// given: on a loaded machine it varies far less than requests per second.
// Two processes of the same app differ too (JIT decisions, memory layout):
// with both apps live, one pair of processes measured 1.5 % apart (Node 24,
// 2026-11-27). So the rounds are spread over PAIRS pairs of fresh processes,
// each pair running every order of the routes once.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import autocannon from 'autocannon';
import { startApp } from './start-app.mjs';

const QUICK = process.argv.includes('--quick');
const ROUNDS = QUICK ? 4 : 16;
/** Pairs of app processes the rounds are spread over (ROUNDS / PAIRS rounds each). */
const PAIRS = QUICK ? 1 : 4;
const DURATION_S = QUICK ? 1 : 2;
const WARMUP_S = QUICK ? 1 : 3;
const CONNECTIONS = 10;

/** CPU time of a process so far, in milliseconds (Linux /proc; NaN elsewhere). */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
  } catch {
    return Number.NaN;
  }
}

/** The four routes, on the apps of one pair. */
const targetsOf = (pinned, live, ports) => ({
  pinned: {
    pid: pinned.child.pid,
    port: ports.pinned,
    path: '/guarded',
    label: "GET /guarded (@FeatureFlag('bench-flag')), pinning on (default)",
  },
  live: { pid: live.child.pid, port: ports.live, path: '/guarded', label: 'GET /guarded, `consistentReads: false`' },
  open: {
    pid: live.child.pid,
    port: ports.live,
    path: '/open',
    label: 'GET /open (no guard), `consistentReads: false`',
  },
  // Pinning without a guard: every request still takes its revision and runs in its pinned scope.
  pinnedOpen: {
    pid: pinned.child.pid,
    port: ports.pinned,
    path: '/open',
    label: 'GET /open (no guard), pinning on (default)',
  },
});
let TARGETS;
const run = (name, duration) =>
  autocannon({
    url: `http://127.0.0.1:${TARGETS[name].port}${TARGETS[name].path}`,
    connections: CONNECTIONS,
    duration,
    pipelining: 1,
  });
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const rps = { pinned: [], live: [], open: [], pinnedOpen: [] };
const p99 = { pinned: [], live: [], open: [], pinnedOpen: [] };
const cpu = { pinned: [], live: [], open: [], pinnedOpen: [] };
const cpuCosts = [];
const costs = [];
const openCosts = [];
const vsOpen = [];
const ORDERS = [
  ['pinned', 'live', 'open', 'pinnedOpen'],
  ['live', 'pinnedOpen', 'pinned', 'open'],
  ['open', 'pinned', 'pinnedOpen', 'live'],
  ['pinnedOpen', 'open', 'live', 'pinned'],
];
for (let pair = 0; pair < PAIRS; pair++) {
  const pinned = startApp([]);
  const live = startApp(['--no-pinning']);
  TARGETS = targetsOf(pinned, live, { pinned: await pinned.port, live: await live.port });
  for (const name of Object.keys(TARGETS)) await run(name, WARMUP_S);
  for (let round = 0; round < ROUNDS / PAIRS; round++) {
    const seen = {};
    for (const name of ORDERS[round % ORDERS.length]) {
      const before = cpuMs(TARGETS[name].pid);
      const r = await run(name, DURATION_S);
      cpu[name].push(((cpuMs(TARGETS[name].pid) - before) * 1000) / r.requests.total);
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${name}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
      seen[name] = r.requests.average;
      rps[name].push(r.requests.average);
      p99[name].push(r.latency.p99);
    }
    costs.push(1 - seen.pinned / seen.live);
    openCosts.push(1 - seen.pinnedOpen / seen.open);
    cpuCosts.push(cpu.pinned.at(-1) / cpu.live.at(-1) - 1);
    vsOpen.push(seen.pinned / seen.open);
  }
  const exited = Promise.all([once(pinned.child, 'exit'), once(live.child, 'exit')]);
  pinned.child.kill('SIGKILL');
  live.child.kill('SIGKILL');
  await exited;
}

const sorted = [...costs].sort((a, b) => a - b);
const quartile = (q) => (sorted[Math.floor(q * (sorted.length - 1))] * 100).toFixed(1);
const cost = median(costs) * 100;
console.log(
  `node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${os.platform()}, load average ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
console.log(
  `${ROUNDS} back-to-back rounds (one per route) of ${DURATION_S} s per route over ${PAIRS} pair(s) of app processes, ${CONNECTIONS} connections, after ${WARMUP_S} s warmup each`,
);
console.log('| route | median req/s | min–max req/s | median p99 latency | median CPU per request |');
console.log('|---|---|---|---|---|');
for (const name of Object.keys(TARGETS)) {
  const xs = rps[name];
  console.log(
    `| ${TARGETS[name].label} | ${Math.round(median(xs))} | ${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))} | ${median(p99[name])} ms | ${median(cpu[name]).toFixed(0)} µs |`,
  );
}
console.log(
  `cost of pinning on the guarded route, median of the ${ROUNDS} round ratios (1 − pinned / live): ${cost.toFixed(1)} % (quartiles ${quartile(0.25)} % – ${quartile(0.75)} %; target ≤ 3 %)`,
);
console.log(`guarded with pinning / unguarded without, same run: ${(median(vsOpen) * 100).toFixed(1)} %`);
console.log(
  `cost of pinning on the unguarded route (1 − pinned /open / live /open), median of the ${ROUNDS} rounds: ${(median(openCosts) * 100).toFixed(1)} %`,
);
const cpuSorted = [...cpuCosts].sort((a, b) => a - b);
console.log(
  `CPU per request, pinned / live on the guarded route − 1, median of the ${ROUNDS} rounds: ${(median(cpuCosts) * 100).toFixed(1)} % (quartiles ${(cpuSorted[Math.floor(0.25 * (ROUNDS - 1))] * 100).toFixed(1)} % – ${(cpuSorted[Math.floor(0.75 * (ROUNDS - 1))] * 100).toFixed(1)} %)`,
);
console.log(cost <= 3 ? 'target met' : 'ABOVE TARGET');
