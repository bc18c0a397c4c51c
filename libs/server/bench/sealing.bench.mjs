// Sealing at rest (#40): what it costs and how long a root-key rotation takes.
//   node bench/sealing.bench.mjs [--quick] [--fleet-only] [--baseline-cli [NAME=]/path/to/other/dist/cjs/cli.js]...
// 1. The codec alone: a secret version sealed and opened (AES-256-GCM, synthetic IV), per second.
// 2. Secret writes (PUT /v1/secrets, each fsynced by the journal) and secret reads (GET /v1/sync of a
//    service with 50 secrets) per second against a CLI with --state: this build (sealed) and each
//    --baseline-cli (NAME defaults to "unsealed"; give several, e.g. a build from before #40 and this build
//    with sealing switched off), in alternating rounds, each compared with this build.
// 3. A root-key rotation of a state holding 100,000 secret versions while 16 connections keep writing
//    secrets: the time from the call to its answer (data keys re-wrapped, the state rewritten sealed).
// 4. The same on a fleet (when PostgreSQL is installed): three replicas on one database, 16 connections
//    writing through all three, the rotation asked of one; also how long until every replica wraps with the
//    new key.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startVaneServer } from '../dist/esm/index.js';
import { Keyring } from '../dist/esm/sealing/keyring.js';
import { SealingCodec } from '../dist/esm/sealing/sealing-codec.js';
import { emptyService } from '../dist/esm/domain/state-change.js';
import { findPostgresBin, startBenchPostgres } from './bench-postgres.mjs';
import { secretWriteRequest, startServerProcess } from './bench-server.mjs';

const TOKEN = 'bench-admin-token';
const KEY = 'svs_bench_secret';
const WAIT_MS = 30_000;
const quick = process.argv.includes('--quick');
// Only part 4, the fleet's rotation.
const fleetOnly = process.argv.includes('--fleet-only');
const baselines = process.argv.flatMap((arg, i, all) => {
  if (arg !== '--baseline-cli') return [];
  const spec = all[i + 1];
  const at = spec.indexOf('=');
  return [at === -1 ? { name: 'unsealed', path: spec } : { name: spec.slice(0, at), path: spec.slice(at + 1) }];
});
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
  return startServerProcess(cliPath, {
    seedPath,
    args: ['--state', join(dir, 'state.json')],
    adminToken: TOKEN,
    rootKey: randomBytes(32).toString('base64'),
    timeoutMs: WAIT_MS,
  });
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
  try {
    const writes = await run(pid, {
      url: `http://127.0.0.1:${port}`,
      connections: 16,
      duration: durationS,
      requests: [secretWriteRequest({ host, apiKey: KEY, valuePrefix: 'secret-value-', counter: { sent: 0 } })],
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
  const server = await startVaneServer({
    seed: {
      tenant: { write_rate_per_minute: 100_000_000 },
      services: { bench: { kind: 'backend', keys: [KEY], secrets } },
    },
    statePath: join(dir, 'state.json'),
    rootKey: randomBytes(32).toString('base64'),
    adminToken: TOKEN,
  });
  const firstSealMs = performance.now() - startedAt;
  const counter = { sent: 0 };
  const host = `bench.localhost:${server.port}`;
  try {
    const load = autocannon({
      url: `http://127.0.0.1:${server.port}`,
      connections: 16,
      duration: quick ? 3 : 6,
      requests: [secretWriteRequest({ host, apiKey: KEY, valuePrefix: 'during-', counter })],
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const before = counter.sent;
    const rotateStart = performance.now();
    const answer = await fetch(`${server.url}/admin/v1/root-key/rotate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ root_key: randomBytes(32).toString('base64') }),
    });
    const rotateMs = performance.now() - rotateStart;
    const writesDuring = counter.sent - before;
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

/** 1,000 secrets of `versions / 1,000` versions each, in seed form (versions as strings). */
function manySecrets(versions) {
  const secrets = {};
  for (let s = 0; s < 1000; s++) {
    secrets[`s.${s}`] = {
      versions: Array.from({ length: versions / 1000 }, (_, v) => `secret-${s}-version-${v}-${'x'.repeat(24)}`),
    };
  }
  return secrets;
}

/** A load of secret writes (16 connections in all) spread over `servers`. */
function writeLoad(servers, durationS) {
  const counter = { sent: 0 };
  const loads = servers.map((server, i) =>
    autocannon({
      url: `http://127.0.0.1:${server.port}`,
      connections: Math.floor(16 / servers.length) + (i < 16 % servers.length ? 1 : 0),
      duration: durationS,
      requests: [
        secretWriteRequest({ host: `bench.localhost:${server.port}`, apiKey: KEY, valuePrefix: 'during-', counter }),
      ],
    }),
  );
  return {
    sent: () => counter.sent,
    done: async () => {
      const results = await Promise.all(loads);
      return {
        writesPerSecond: results.reduce((sum, r) => sum + r.requests.average, 0),
        non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
      };
    },
  };
}

/** 4. Rotation on a fleet of three replicas, 100,000 secret versions, writes through all three. */
async function fleetRotation() {
  const bin = findPostgresBin();
  if (!bin) return undefined;
  const pg = await startBenchPostgres(bin);
  const versions = quick ? 10_000 : 100_000;
  const oldKey = randomBytes(32).toString('base64');
  const newKey = randomBytes(32).toString('base64');
  const newId = Keyring.parse(newKey, 'new key').primary.id;
  const replicas = [];
  try {
    const store = await pg.createDatabase('bench_rotation');
    // The versions in a service of their own: a fleet's write saves the service it writes for its undo, so
    // writes to one holding 100,000 versions would measure that copy rather than the rotation.
    const seed = {
      tenant: { write_rate_per_minute: 100_000_000 },
      services: {
        vault: { kind: 'backend', keys: ['svs_bench_vault'], secrets: manySecrets(versions) },
        bench: { kind: 'backend', keys: [KEY] },
      },
    };
    // Step 1 of the procedure: every replica holds both keys, the old one first.
    for (let i = 0; i < 3; i++) {
      replicas.push(await startVaneServer({ store, seed, rootKey: `${oldKey},${newKey}`, adminToken: TOKEN }));
    }
    const load = writeLoad(replicas, quick ? 4 : 8);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const before = load.sent();
    const rotateStart = performance.now();
    const answer = await fetch(`${replicas[0].url}/admin/v1/root-key/rotate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ root_key: newKey }),
    });
    const rotateMs = performance.now() - rotateStart;
    if (!answer.ok) throw new Error(`rotation answered ${answer.status}: ${await answer.text()}`);
    const writesDuring = load.sent() - before;
    // Every replica follows: it wraps with the new key and holds no data key wrapped by another.
    for (;;) {
      const states = await Promise.all(
        replicas.map(async (r) => {
          const sealing = await fetch(`${r.url}/admin/v1/sealing`, { headers: { authorization: `Bearer ${TOKEN}` } });
          return sealing.json();
        }),
      );
      if (states.every((s) => s.root_key === newId && s.other_root_keys.length === 0)) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const followedMs = performance.now() - rotateStart;
    return { versions, rotateMs, followedMs, writesDuring, ...(await load.done()) };
  } finally {
    await Promise.all(replicas.map((r) => r.close()));
    await pg.stop();
  }
}

if (!fleetOnly) {
  console.log(`codec: ${codecRate().toFixed(0)} secret versions sealed and opened per second`);
  // The machine is shared: builds alternate, round after round, and medians are compared.
  const rounds = quick ? 2 : 8;
  const results = Object.fromEntries([...baselines.map((b) => [b.name, []]), ['sealed', []]]);
  for (let round = 0; round < rounds; round++) {
    for (const baseline of baselines) results[baseline.name].push(await measure(baseline.path));
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
    const non2xx = list.reduce((sum, r) => sum + r.writes.non2xx + r.reads.non2xx, 0);
    console.log(
      `| ${name} | ${median(list, 'writes', 'rps').toFixed(0)} | ${median(list, 'writes', 'cpuUs').toFixed(0)} | ` +
        `${median(list, 'reads', 'rps').toFixed(0)} | ${median(list, 'reads', 'cpuUs').toFixed(0)} | ${non2xx} |`,
    );
  }
  for (const { name } of baselines) {
    const ratio = (kind, member) =>
      (median(results.sealed, kind, member) / median(results[name], kind, member)).toFixed(2);
    console.log(
      `sealed/${name} (median of ${rounds} alternating rounds): writes/s ${ratio('writes', 'rps')}x, ` +
        `reads/s ${ratio('reads', 'rps')}x; CPU per write ${ratio('writes', 'cpuUs')}x, per read ${ratio('reads', 'cpuUs')}x`,
    );
  }
  const r = await rotation();
  console.log(
    `rotation: ${r.versions} secret versions; first start sealing them ${r.firstSealMs.toFixed(0)} ms; ` +
      `rotate-root-key answered in ${r.rotateMs.toFixed(0)} ms with ${r.writesDuring} secret writes sent meanwhile ` +
      `(${r.writesPerSecond.toFixed(0)} writes/s over the run, ${r.non2xx} non-2xx)`,
  );
}
const f = await fleetRotation();
console.log(
  f === undefined
    ? 'fleet rotation: no PostgreSQL found (initdb and postgres on the PATH or under /usr/lib/postgresql)'
    : `fleet rotation: ${f.versions} secret versions, three replicas; rotate-root-key answered in ` +
        `${f.rotateMs.toFixed(0)} ms with ${f.writesDuring} secret writes sent meanwhile, every replica wrapping ` +
        `with the new key ${f.followedMs.toFixed(0)} ms after the call (${f.writesPerSecond.toFixed(0)} writes/s ` +
        `over the run, ${f.non2xx} non-2xx)`,
);
