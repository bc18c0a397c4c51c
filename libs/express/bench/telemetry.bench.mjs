#!/usr/bin/env node
// Requests per second of a route behind vane.requireFlag() with tracing on (the OpenTelemetry SDK, a span
// per request, the guard's feature_flag.evaluation event on it) against the same route with tracing off
// (no SDK, `telemetry: false`), measured in one run (`npm run bench` in libs/express, on the built
// packages; `--quick` for a short run). Each app runs in its own process, the load (autocannon) in this
// one; the apps are measured in many short back-to-back pairs, order alternating, and the figure is the
// median of the pair ratios (the shared machine's speed drifts within a minute).
import { spawn } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const QUICK = process.argv.includes('--quick');
const PAIRS = QUICK ? 4 : 12;
const DURATION_S = QUICK ? 1 : 2;
const WARMUP_S = QUICK ? 1 : 3;
const CONNECTIONS = 10;

function startApp(tracing) {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./telemetry-app.mjs', import.meta.url))], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, TRACING: tracing },
  });
  const port = new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('the app did not start within 15 s')), 15_000);
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
  return { child, port };
}

const apps = { on: startApp('on'), app: startApp('app'), off: startApp('off') };
const ports = { on: await apps.on.port, app: await apps.app.port, off: await apps.off.port };
const run = (name, duration) =>
  autocannon({ url: `http://127.0.0.1:${ports[name]}/guarded`, connections: CONNECTIONS, duration, pipelining: 1 });
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

for (const name of ['off', 'app', 'on']) await run(name, WARMUP_S);
const rps = { on: [], app: [], off: [] };
const p99 = { on: [], app: [], off: [] };
const ratios = [];
const vaneRatios = [];
const ORDERS = [
  ['off', 'app', 'on'],
  ['on', 'off', 'app'],
  ['app', 'on', 'off'],
  ['on', 'app', 'off'],
];
for (let pair = 0; pair < PAIRS; pair++) {
  const order = ORDERS[pair % ORDERS.length];
  const got = {};
  for (const name of order) {
    const r = await run(name, DURATION_S);
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`${name}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
    got[name] = r.requests.average;
    rps[name].push(r.requests.average);
    p99[name].push(r.latency.p99);
  }
  ratios.push(got.on / got.off);
  vaneRatios.push(got.on / got.app);
}
for (const app of Object.values(apps)) app.child.kill('SIGTERM');

console.log(
  `node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, load average ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}; ${PAIRS} rounds of ${DURATION_S} s per app, ${CONNECTIONS} connections`,
);
console.log('| GET /guarded (requireFlag, flag on) | median req/s | min–max req/s | median p99 latency |');
console.log('|---|---|---|---|');
const LABELS = {
  off: 'tracing off: no SDK, `telemetry: false`',
  app: 'tracing on, Vane telemetry off: SDK and a span per request, `telemetry: false`',
  on: "tracing on: SDK, a span per request, the guard's flag event",
};
for (const name of ['off', 'app', 'on']) {
  console.log(
    `| ${LABELS[name]} | ${Math.round(median(rps[name]))} | ${Math.round(Math.min(...rps[name]))}–${Math.round(Math.max(...rps[name]))} | ${median(p99[name])} ms |`,
  );
}
const sorted = [...ratios].sort((a, b) => a - b);
console.log(
  `tracing on / off, median of the ${PAIRS} round ratios: ${(median(ratios) * 100).toFixed(1)} % (quartiles ${(sorted[Math.floor(0.25 * (sorted.length - 1))] * 100).toFixed(1)} % – ${(sorted[Math.floor(0.75 * (sorted.length - 1))] * 100).toFixed(1)} %)`,
);
console.log(
  `Vane's share: tracing on / tracing on with telemetry: false, median of the round ratios: ${(median(vaneRatios) * 100).toFixed(1)} %`,
);
