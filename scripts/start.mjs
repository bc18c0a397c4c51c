#!/usr/bin/env node
// `npm start` (after the build): the local Vane server on the demo seed, then
// the NestJS sample and the Express sample against it (the `shop` service, a
// secret key), and the browser example apps, the Vite + React one and the
// Next.js one (the frontend service `web`, its public key), built for
// production by `npm run build` like everything else. Prints the URLs, a curl
// per feature and the admin calls that flip flags, once everything listens.
//
// Ctrl-C (SIGINT), SIGTERM or SIGHUP: the apps get SIGTERM, and once they have
// exited (their streams closed) the server does; the script exits 0 once all
// have exited. Each child runs in a process group of its own, so a terminal's
// Ctrl-C, which signals the whole foreground group, reaches the script alone:
// the server does not stop under the apps, and no app gets a second signal
// (which would make it skip its drain). A child that exits on its own (a port
// taken, a crash) stops the others, and the script exits 1.
//
// Environment: VANE_PORT (4400), NEST_PORT (3000), EXPRESS_PORT (3001),
// VITE_PORT (5173), NEXT_PORT (3100); 0 picks a free port (the real one is
// read from the child's "listening on" line).
// VANE_ADMIN_TOKEN (vane-demo-admin-token).
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { tarballName, withVaneDependencies, workspaceOf } from './vane-tarballs.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const vanePort = process.env.VANE_PORT || '4400';
const nestPort = process.env.NEST_PORT || '3000';
const expressPort = process.env.EXPRESS_PORT || '3001';
const vitePort = process.env.VITE_PORT || '5173';
const nextPort = process.env.NEXT_PORT || '3100';
const adminToken = process.env.VANE_ADMIN_TOKEN || 'vane-demo-admin-token';
const apiKey = 'svs_shop_local_secret'; // the demo seed's secret key for the `shop` service
const publicKey = 'svp_web_local_public'; // the demo seed's public key for the frontend service `web`
const READY_TIMEOUT_MS = 30_000;

/** @type {Map<string, import('node:child_process').ChildProcess>} children still running, by name */
const running = new Map();
let stopping = false;
let failed = false;

/**
 * Starts `node <script>` as a named child, its output prefixed with the name.
 * Resolves with the URL it prints (`listening on http://…`).
 */
function startChild(name, args, env) {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // a process group of its own: Ctrl-C in the terminal signals the script only
  });
  running.set(name, child);
  const prefix = `[${name}]`.padEnd(10);
  console.log(`${prefix} started (pid ${child.pid})`);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name} did not print its URL within ${READY_TIMEOUT_MS} ms`)),
      READY_TIMEOUT_MS,
    );
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        (stream === child.stderr ? process.stderr : process.stdout).write(`${prefix} ${line}\n`);
        const url = /listening on (http:\/\/\S+)/.exec(line)?.[1];
        if (url) {
          clearTimeout(timer);
          resolve(url);
        }
      });
    }
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      running.delete(name);
      console.log(`${prefix} exited (${signal ?? `code ${code}`})`);
      reject(new Error(`${name} exited before it listened`));
      if (!stopping) {
        failed = true;
        stop();
      } else if (name !== 'vane' && running.size === 1 && running.has('vane')) {
        running.get('vane').kill('SIGTERM'); // the apps are down: now the server they were streaming from
      }
      if (running.size === 0) process.exit(failed ? 1 : 0);
    });
  });
}

const STOP_TIMEOUT_MS = 10_000;

/** Stops the apps first (they close their streams), then the server once they are gone. */
function stop() {
  if (stopping) return;
  stopping = true;
  // A child that ignores SIGTERM must not keep the script (and the ports) forever.
  setTimeout(() => {
    for (const [name, child] of running) {
      console.error(`[${name}] still running after ${STOP_TIMEOUT_MS} ms: SIGKILL`);
      child.kill('SIGKILL');
    }
    failed = true;
  }, STOP_TIMEOUT_MS).unref();
  const apps = [...running].filter(([name]) => name !== 'vane');
  if (apps.length === 0) running.get('vane')?.kill('SIGTERM');
  for (const [, child] of apps) child.kill('SIGTERM');
  if (running.size === 0) process.exit(failed ? 1 : 0);
}

// Detached children outlive the script unless it stops them: whatever way it ends, what still runs gets SIGTERM.
process.on('exit', () => {
  for (const child of running.values()) child.kill('SIGTERM');
});

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (stopping) return;
    console.log(`\n${signal}: stopping the samples and the local server`);
    stop();
  });
}

/** The curl that opens the demo service's stream with its secret key (the key goes in X-Service-API-Key). */
function streamCurl(vaneUrl) {
  const { port } = new URL(vaneUrl);
  const serviceUrl = `http://shop.localhost:${port}`;
  return `curl -N --resolve shop.localhost:${port}:127.0.0.1 -H 'X-Service-API-Key: ${apiKey}' ${serviceUrl}/v1/stream`;
}

/** What an app of the reader's own installs, per framework: the @vane/* packages and the framework. */
const YOUR_APP = [
  ['NestJS', ['@vane/nestjs', '@vane/client'], ['@nestjs/config']],
  ['Express', ['@vane/express', '@vane/client'], ['express']],
  ['Fastify', ['@vane/fastify'], ['fastify']],
  ['OpenFeature', ['@vane/openfeature'], ['@openfeature/server-sdk']],
  ['React (browser)', ['@vane/react', '@vane/browser'], ['react', 'react-dom']],
];

/**
 * The lines that pack the packages here and install them in an app of the reader's own from those
 * tarballs, every tarball an install needs named (the @vane/* dependencies are not on the registry yet).
 */
function yourAppLines(packs = join(tmpdir(), 'vane-packs')) {
  const installs = [...YOUR_APP.map(([, vane]) => vane), ['@vane/server']];
  const all = withVaneDependencies(installs.flat());
  const pack = `mkdir -p ${packs} && npm pack --pack-destination ${packs} ${all.map((n) => `-w ${workspaceOf(n)}`).join(' ')}`;
  const install = (names, extra) =>
    `npm install ${withVaneDependencies(names)
      .map((name) => join(packs, tarballName(name)))
      .join(' ')}${extra.length > 0 ? ` ${extra.join(' ')}` : ''}`;
  return [
    `  ${pack}   # here`,
    ...YOUR_APP.map(([label, names, extra]) => `  ${install(names, extra)}   # ${label}, in your app`),
    // After one of the installs above, which put @vane/common among the app's dependencies: naming it
    // again with --save-dev would move it to devDependencies, and a production install would lack it.
    `  npm install --save-dev ${join(packs, tarballName('@vane/server'))}   # the local server, for your tests, after one of the above`,
  ];
}

function tryIt(vaneUrl, nestUrl, expressUrl, viteUrl, nextUrl) {
  const flagUrl = `${vaneUrl}/admin/v1/services/shop`;
  const webUrl = `${vaneUrl}/admin/v1/services/web`;
  const admin = `curl -X PUT -H 'Authorization: Bearer ${adminToken}' -H 'Content-Type: application/json'`;
  return `
Vane demo running:
  local Vane server  ${vaneUrl}  (service shop: ${vaneUrl.replace('127.0.0.1', 'shop.localhost')}; keys in libs/server/seeds/demo.seed.json; admin token ${adminToken})
  web console        ${vaneUrl}/console/  (log in with the admin token; flip flags, edit configs, rotate secrets)
  NestJS sample      ${nestUrl}
  Express sample     ${expressUrl}
  Vite + React app   ${viteUrl ? `${viteUrl}/?user=u-1  (examples/vite-react: the frontend service web, public key ${publicKey})` : 'not built on this Node (Vite 8 needs ^20.19 || >=22.12)'}
  Next.js app        ${nextUrl}/?user=u-1  (examples/nextjs: server-rendered from the revision it hands the browser)

NestJS sample (sample-app/src):
  curl ${nestUrl}/greeting                            # a config read live through an observable
  curl -N ${nestUrl}/greeting/stream                  # the same, as server-sent events
  curl -i ${nestUrl}/checkout                         # behind @FeatureFlag('new-checkout')
  curl -i ${nestUrl}/dashboard                        # behind beta-dashboard (off): 403
  curl -i -H 'x-user-id: u-1' -H 'x-country: DE' ${nestUrl}/pricing   # A/B: on for DE and FR
  curl '${nestUrl}/pricing/variant?user=u-2&country=US'                # A/B decision as a parameter
  curl ${nestUrl}/payments                            # a text secret (its length and version, never its value)
  curl ${nestUrl}/tls                                 # a file secret (its file, not its content)
  curl ${nestUrl}/db                                  # configs through @nestjs/config's ConfigService
  curl ${nestUrl}/health                              # terminus health indicator

Express sample (sample-app/express):
  curl ${expressUrl}/greeting
  curl -i ${expressUrl}/checkout
  curl -i -H 'x-user-id: u-1' -H 'x-country: DE' ${expressUrl}/pricing
  curl ${expressUrl}/payments ${expressUrl}/tls

Watch the service's live stream (server-sent events, docs/protocol.md §6) while you run the commands below:
  ${streamCurl(vaneUrl)}
Flip new-checkout off: both /checkout routes answer 404 at once
  ${admin.replace('-X PUT', '-X PATCH')} -d '{"is_enabled": false}' ${flagUrl}/flags/new-checkout
Change the greeting, rotate the Stripe key:
  ${admin} -d '{"value": "Hi from the admin API"}' ${flagUrl}/configs/greeting.text
  ${admin} -d '{"value": "rk_test_rotated"}' ${flagUrl}/secrets/stripe.api_key

Browser apps (open them, then flip): dark-mode off hides their dark-mode note at once, no reload;
theme.color changes their header; ?user=u-2 (or any id) shows that user's new-hero A/B variant
  ${admin.replace('-X PUT', '-X PATCH')} -d '{"is_enabled": false}' ${webUrl}/flags/dark-mode
  ${admin} -d '{"value": "#ff5a00"}' ${webUrl}/configs/theme.color

Try the packages in an app of your own, installed from the tarballs npm pack makes here:
${yourAppLines().join('\n')}

Press Ctrl-C to stop everything.
`;
}

async function main() {
  const vaneUrl = await startChild(
    'vane',
    ['libs/server/dist/cjs/cli.js', '--seed', 'libs/server/seeds/demo.seed.json', '--port', vanePort],
    { VANE_ADMIN_TOKEN: adminToken },
  );
  const baseUrl = vaneUrl.replace('127.0.0.1', 'shop.localhost');
  const appEnv = { VANE_BASE_URL: baseUrl, VANE_API_KEY: apiKey, HOST: '127.0.0.1' };
  const browserEnv = { VANE_BASE_URL: vaneUrl.replace('127.0.0.1', 'web.localhost'), VANE_PUBLIC_KEY: publicKey };
  // The build skips the Vite app on a Node older than Vite 8 accepts: then it is left out here too.
  const viteBuilt = existsSync(join(root, 'examples/vite-react/dist/index.html'));
  if (!viteBuilt) console.log('[vite]     not built (Vite 8 needs Node ^20.19 || >=22.12): left out');
  const [nestUrl, expressUrl, viteUrl, nextUrl] = await Promise.all([
    startChild('nest', ['sample-app/dist/main.js'], { ...appEnv, PORT: nestPort }),
    startChild('express', ['sample-app/express/dist/main.js'], { ...appEnv, PORT: expressPort }),
    viteBuilt
      ? startChild('vite', ['examples/vite-react/serve.mjs'], { ...browserEnv, HOST: '127.0.0.1', PORT: vitePort })
      : undefined,
    startChild('next', ['examples/nextjs/server.mjs'], { ...browserEnv, HOST: '127.0.0.1', PORT: nextPort }),
  ]);
  if (!stopping) console.log(tryIt(vaneUrl, nestUrl, expressUrl, viteUrl, nextUrl));
}

main().catch((err) => {
  if (stopping) return; // a child exited: its exit handler is already stopping the rest
  console.error(`npm start: ${err.message}`);
  failed = true;
  stop();
});
