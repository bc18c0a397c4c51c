#!/usr/bin/env node
// Requests per second of a route behind @FeatureFlag() against the same route
// unguarded, measured in one run (`npm run bench` in libs/nestjs, on the built
// packages; `--quick` for a short run). The app runs in its own process; the
// load (autocannon) in this one. Rounds alternate between the two routes so
// drift (thermal, other load) hits both alike; the medians are compared.
import { spawn } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const QUICK = process.argv.includes('--quick');
const ROUNDS = QUICK ? 2 : 5;
const DURATION_S = QUICK ? 3 : 10;
const WARMUP_S = QUICK ? 1 : 3;
const CONNECTIONS = 50;

const child = spawn(process.execPath, [fileURLToPath(new URL('./app.mjs', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise((resolve, reject) => {
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

const run = (path, duration) =>
  autocannon({ url: `http://127.0.0.1:${port}${path}`, connections: CONNECTIONS, duration, pipelining: 1 });

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

await run('/open', WARMUP_S);
await run('/guarded', WARMUP_S);
const results = { open: [], guarded: [] };
const p99 = { open: [], guarded: [] };
for (let round = 0; round < ROUNDS; round++) {
  // Alternate which route goes first, so neither always gets the warmer machine.
  const order = round % 2 === 0 ? ['open', 'guarded'] : ['guarded', 'open'];
  for (const name of order) {
    const r = await run(`/${name}`, DURATION_S);
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`/${name}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
    results[name].push(r.requests.average);
    p99[name].push(r.latency.p99);
  }
}
child.kill('SIGTERM');

const open = median(results.open);
const guarded = median(results.guarded);
const ratio = (guarded / open) * 100;
console.log(`node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${os.platform()}`);
console.log(`${ROUNDS} alternating rounds of ${DURATION_S} s per route, ${CONNECTIONS} connections, after ${WARMUP_S} s warmup each`);
console.log('| route | req/s per round | median req/s | median p99 latency |');
console.log('|---|---|---|---|');
for (const name of ['open', 'guarded']) {
  console.log(`| GET /${name}${name === 'guarded' ? " (@FeatureFlag('bench-flag'))" : ''} | ${results[name].map((x) => Math.round(x)).join(', ')} | ${Math.round(median(results[name]))} | ${median(p99[name])} ms |`);
}
console.log(`guarded / unguarded: ${ratio.toFixed(1)} % (target ≥ 97 %)`);
process.exitCode = ratio >= 97 ? 0 : 1;
