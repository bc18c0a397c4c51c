// Admin write throughput with a state file: autocannon PUTs config values (each a new value, so each commits a
// revision) against a CLI started with --state (or on the store given, e.g. PostgreSQL), and reports
// requests/s and latency percentiles.
// `measureAdminWrites(cli)` is used by local-server.bench.mjs; run alone to compare two builds in one run:
//   node bench/admin-writes.mjs [--quick] [--baseline-cli /path/to/old/dist/cjs/cli.js]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startServerProcess } from './bench-server.mjs';

const TOKEN = 'bench-admin-token';
const WAIT_MS = 10_000;

/** Starts `cli` with a fresh state file, or on `store` (through VANE_STORE: it may hold a password); resolves with its port and a stop function. */
async function startCli(cli, dir, store) {
  const seedPath = join(dir, 'writes.seed.json');
  writeFileSync(seedPath, JSON.stringify({ services: { bench: { kind: 'backend', keys: ['svs_bench_secret'] } } }));
  return startServerProcess(cli, {
    seedPath,
    args: store === undefined ? ['--state', join(dir, 'state.json')] : [],
    adminToken: TOKEN,
    rootKey: Buffer.alloc(32, 7).toString('base64'),
    store,
    timeoutMs: WAIT_MS,
  });
}

/**
 * Measures concurrent admin writes against `cli` with a state file, or on `store` (a `postgres://` URL).
 * @returns requests/s (average), latency p50 and p99 in ms, and the count of non-2xx answers.
 */
export async function measureAdminWrites(cli, { connections = 16, durationS = 5, store } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'vane-bench-writes-'));
  const { port, stop } = await startCli(cli, dir, store);
  let counter = 0;
  try {
    const result = await autocannon({
      url: `http://127.0.0.1:${port}`,
      connections,
      duration: durationS,
      requests: [
        {
          method: 'PUT',
          setupRequest(request) {
            counter += 1;
            return {
              ...request,
              path: `/admin/v1/services/bench/configs/bench.key${counter % 64}`,
              headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
              body: JSON.stringify({ value: `value-${counter}` }),
            };
          },
        },
      ],
    });
    return {
      connections,
      rps: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      non2xx: result.non2xx,
    };
  } finally {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const quick = process.argv.includes('--quick');
  const baselineAt = process.argv.indexOf('--baseline-cli');
  const cli = fileURLToPath(new URL('../dist/cjs/cli.js', import.meta.url));
  const options = { durationS: quick ? 2 : 5 };
  const rows = [];
  if (baselineAt !== -1) rows.push(['baseline', await measureAdminWrites(process.argv[baselineAt + 1], options)]);
  rows.push(['this build', await measureAdminWrites(cli, options)]);
  console.log('| build | connections | writes/s | p50 | p99 | non-2xx |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const [name, r] of rows) {
    console.log(`| ${name} | ${r.connections} | ${r.rps.toFixed(0)} | ${r.p50} ms | ${r.p99} ms | ${r.non2xx} |`);
  }
}
