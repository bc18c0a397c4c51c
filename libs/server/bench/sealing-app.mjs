// The server that bench/sealing-instructions.bench.mjs counts: a build's startVaneServer (the build's
// dist directory as argv[2]) on a fresh state file with a seed of 50 secrets, printing {"port": n} once it
// listens. Run with --expose-gc: SIGUSR2 collects garbage, so no full collection falls in the counted window.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = process.argv[2];
const { startVaneServer } = await import(pathToFileURL(join(dist, 'esm', 'index.js')).href);
const dir = mkdtempSync(join(tmpdir(), 'vane-sealing-app-'));
const secrets = Object.fromEntries(Array.from({ length: 50 }, (_, n) => [`s.${n}`, { value: `value-${n}` }]));
const server = await startVaneServer({
  seed: {
    tenant: { write_rate_per_minute: 100_000_000 },
    services: { bench: { kind: 'backend', keys: ['svs_bench_secret'], secrets } },
  },
  statePath: join(dir, 'state.json'),
  rootKey: randomBytes(32).toString('base64'),
  adminToken: 'bench-admin-token',
});
process.on('SIGUSR2', () => globalThis.gc?.());
console.log(JSON.stringify({ port: server.port }));
