#!/usr/bin/env node
// `npm start`: the local Vane server on the demo seed, with the commands to try
// printed once it listens. Ctrl-C stops it cleanly.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const port = process.env.VANE_PORT ?? '4400';
const adminToken = process.env.VANE_ADMIN_TOKEN || 'vane-demo-admin-token';

const child = spawn(
  process.execPath,
  ['libs/local-server/dist/cjs/cli.js', '--seed', 'libs/local-server/seeds/demo.seed.json', '--port', port],
  { cwd: root, env: { ...process.env, VANE_ADMIN_TOKEN: adminToken }, stdio: ['ignore', 'pipe', 'inherit'] },
);

let hinted = false;
child.stdout.setEncoding('utf8');
child.stdout.on('data', (text) => {
  process.stdout.write(text);
  if (!hinted && /listening on/.test(text)) {
    hinted = true;
    const base = `http://shop.localhost:${port}`;
    console.log(`
Try it (demo keys are in libs/local-server/seeds/demo.seed.json):
  curl -H 'X-Service-API-Key: svs_shop_local_secret' --resolve shop.localhost:${port}:127.0.0.1 ${base}/v1/sync
  curl -N -H 'X-Service-API-Key: svs_shop_local_secret' --resolve shop.localhost:${port}:127.0.0.1 ${base}/v1/stream
Flip a flag (every open stream gets the patch at once):
  curl -X PUT -H 'Authorization: Bearer ${adminToken}' -H 'Content-Type: application/json' \\
       -d '{"is_enabled": false}' http://127.0.0.1:${port}/admin/v1/services/shop/flags/new-checkout
Press Ctrl-C to stop.`);
  }
});

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
