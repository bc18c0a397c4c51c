// Sealing at rest (#40): what it costs and how long a root-key rotation takes.
//   node bench/sealing.bench.mjs [--quick] [--baseline-cli /path/to/unsealed/dist/cjs/cli.js]
// 1. The codec alone: a secret version sealed and opened (AES-256-GCM, synthetic IV), per second.
// 2. Secret writes (PUT /v1/secrets, each fsynced by the journal) and secret reads (GET /v1/sync of a
//    service with 50 secrets) per second against a CLI with --state: this build (sealed) and, with
//    --baseline-cli, a build from before sealing (unsealed), in alternating rounds.
// 3. A root-key rotation of a state holding 100,000 secret versions while 16 connections keep writing
//    secrets: the time from the call to its answer (data keys re-wrapped, the state rewritten sealed).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startLocalServer } from '../dist/esm/index.js';
import { Keyring } from '../dist/esm/sealing/keyring.js';
import { SealingCodec } from '../dist/esm/sealing/sealing-codec.js';
import { emptyService } from '../dist/esm/persistence/state-change.js';

const TOKEN = 'bench-admin-token';
const KEY = 'svs_bench_secret';
const WAIT_MS = 30_000;
const quick = process.argv.includes('--quick');
const baselineAt = process.argv.indexOf('--baseline-cli');
const baselineCli = baselineAt === -1 ? undefined : process.argv[baselineAt + 1];
const cli = fileURLToPath(new URL('../dist/cjs/cli.js', import.meta.url));

/** 1. The codec alone. */
function codecRate() {
  const codec = new SealingCodec(new Keyring([Keyring.generate().key]));
  const data = { services: new Map([['bench', emptyService('backend')]]) };
  const count = quick ? 20_000 : 100_000;
  const value = 'x'.repeat(64);
  const started = performance.now();
  for (let n = 0; n < count; n++) {
    const change = {
      type: 'secret.version',
      slug: 'bench',
      key: `k${n % 100}`,
      secret_type: 'text',
      version: { version: n + 1, value, created_at: '2026-11-27T12:00:00Z' },
      next_version: n + 2,
      revision: n + 2,
    };
    const stored = codec.sealChange(change, data).at(-1);
    codec.openChange(stored, data);
  }
  const seconds = (performance.now() - started) / 1000;
  return count / seconds;
}

/** Starts `cliPath` with a fresh state file and a seed of 50 secrets; resolves with its port and a stop function. */
async function startCli(cliPath, dir) {
  const seedPath = join(dir, 'seed.json');
  const secrets = Object.fromEntries(Array.from({ length: 50 }, (_, n) => [`s.${n}`, { value: `value-${n}` }]));
  writeFileSync(
    seedPath,
    JSON.stringify({
      tenant: { write_rate_per_minute: 100_000_000 },
      services: { bench: { kind: 'backend', keys: [KEY], secrets } },
    }),
  );
  // The token and key through the environment: this build refuses a token on its command line.
  const child = spawn(
    process.execPath,
    [cliPath, '--seed', seedPath, '--state', join(dir, 'state.json'), '--port', '0'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, VANE_ADMIN_TOKEN: TOKEN, VANE_ROOT_KEY: randomBytes(32).toString('base64') },
    },
  );
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('the server did not start')), WAIT_MS);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /listening on (\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  });
  const stop = () =>
    new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGTERM');
    });
  return { port: Number(new URL(url).port), pid: child.pid, stop };
}

/** CPU time the process has used so far, in ms (user and system, from /proc). */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of the line, in clock ticks (100 a second on Linux).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** One autocannon run against `pid`'s server: requests per second, and the server's CPU per request in µs. */
async function run(pid, options) {
  const before = cpuMs(pid);
  const result = await autocannon(options);
  const used = cpuMs(pid) - before;
  return {
    rps: result.requests.average,
    cpuUs: (used * 1000) / Math.max(1, result.requests.total),
    non2xx: result.non2xx,
  };
}

/** Writes and reads against one CLI. */
async function measure(cliPath) {
  const dir = mkdtempSync(join(tmpdir(), 'vane-bench-sealing-'));
  const { port, pid, stop } = await startCli(cliPath, dir);
  const durationS = quick ? 1 : 2;
  const host = `bench.localhost:${port}`;
  let counter = 0;
  try {
    const writes = await run(pid, {
      url: `http://127.0.0.1:${port}`,
      connections: 16,
      duration: durationS,
      requests: [
        {
          method: 'PUT',
          setupRequest(request) {
            counter += 1;
            return {
              ...request,
              path: `/v1/secrets/w.${counter % 64}`,
              headers: { host, 'x-service-api-key': KEY, 'content-type': 'application/json' },
              body: JSON.stringify({ value: `secret-value-${counter}` }),
            };
          },
        },
      ],
    });
    const reads = await run(pid, {
      url: `http://127.0.0.1:${port}/v1/sync`,
      connections: 16,
      duration: durationS,
      headers: { host, 'x-service-api-key': KEY },
    });
    return { writes, reads };
  } finally {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** 3. Rotation of 100,000 secret versions with writes going on. */
async function rotation() {
  const dir = mkdtempSync(join(tmpdir(), 'vane-bench-rotation-'));
  const versions = quick ? 10_000 : 100_000;
  const secrets = {};
  // 1,000 secrets of 100 versions each (seed form: versions as strings).
  for (let s = 0; s < versions / 100; s++) {
    secrets[`s.${s}`] = {
      versions: Array.from({ length: 100 }, (_, v) => `secret-${s}-version-${v}-${'x'.repeat(24)}`),
    };
  }
  const startedAt = performance.now();
  const server = await startLocalServer({
    seed: {
      tenant: { write_rate_per_minute: 100_000_000 },
      services: { bench: { kind: 'backend', keys: [KEY], secrets } },
    },
    statePath: join(dir, 'state.json'),
    rootKey: randomBytes(32).toString('base64'),
    adminToken: TOKEN,
  });
  const firstSealMs = performance.now() - startedAt;
  let counter = 0;
  const host = `bench.localhost:${server.port}`;
  try {
    const load = autocannon({
      url: `http://127.0.0.1:${server.port}`,
      connections: 16,
      duration: quick ? 3 : 6,
      requests: [
        {
          method: 'PUT',
          setupRequest(request) {
            counter += 1;
            return {
              ...request,
              path: `/v1/secrets/w.${counter % 64}`,
              headers: { host, 'x-service-api-key': KEY, 'content-type': 'application/json' },
              body: JSON.stringify({ value: `during-${counter}` }),
            };
          },
        },
      ],
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const before = counter;
    const rotateStart = performance.now();
    const answer = await fetch(`${server.url}/admin/v1/root-key/rotate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ root_key: randomBytes(32).toString('base64') }),
    });
    const rotateMs = performance.now() - rotateStart;
    const writesDuring = counter - before;
    if (!answer.ok) throw new Error(`rotation answered ${answer.status}: ${await answer.text()}`);
    const result = await load;
    return {
      versions,
      firstSealMs,
      rotateMs,
      writesDuring,
      writesPerSecond: result.requests.average,
      non2xx: result.non2xx,
    };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`codec: ${codecRate().toFixed(0)} secret versions sealed and opened per second`);
// The machine is shared: builds alternate, round after round, and medians are compared.
const rounds = quick ? 2 : 8;
const results = { sealed: [], unsealed: [] };
for (let round = 0; round < rounds; round++) {
  if (baselineCli) results.unsealed.push(await measure(baselineCli));
  results.sealed.push(await measure(cli));
}
const median = (list, kind, member) => {
  const sorted = list.map((r) => r[kind][member]).sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
console.log(
  '| build | secret writes/s | CPU µs per write | secret reads/s (sync, 50 secrets) | CPU µs per read | non-2xx |',
);
console.log('|---|---:|---:|---:|---:|---:|');
for (const [name, list] of Object.entries(results)) {
  if (list.length === 0) continue;
  const non2xx = list.reduce((sum, r) => sum + r.writes.non2xx + r.reads.non2xx, 0);
  console.log(
    `| ${name} | ${median(list, 'writes', 'rps').toFixed(0)} | ${median(list, 'writes', 'cpuUs').toFixed(0)} | ` +
      `${median(list, 'reads', 'rps').toFixed(0)} | ${median(list, 'reads', 'cpuUs').toFixed(0)} | ${non2xx} |`,
  );
}
if (baselineCli) {
  const ratio = (kind, member) =>
    (median(results.sealed, kind, member) / median(results.unsealed, kind, member)).toFixed(2);
  console.log(
    `sealed/unsealed (median of ${rounds} alternating rounds): writes/s ${ratio('writes', 'rps')}x, ` +
      `reads/s ${ratio('reads', 'rps')}x; CPU per write ${ratio('writes', 'cpuUs')}x, per read ${ratio('reads', 'cpuUs')}x`,
  );
}
const r = await rotation();
console.log(
  `rotation: ${r.versions} secret versions; first start sealing them ${r.firstSealMs.toFixed(0)} ms; ` +
    `rotate-root-key answered in ${r.rotateMs.toFixed(0)} ms with ${r.writesDuring} secret writes sent meanwhile ` +
    `(${r.writesPerSecond.toFixed(0)} writes/s over the run, ${r.non2xx} non-2xx)`,
);
