#!/usr/bin/env node
// Time to a stable split after a rolling restart, behind the README's nginx (`npm run bench:rolling`, part of
// `npm run bench`): three `vane-server` replicas on one PostgreSQL (the built package, their defaults), nginx
// with the configuration this package's README prints (read from the README; only the addresses replaced), and
// raw SSE clients through it that reconnect as told (`goaway`) or at once (a stream cut). Each replica in turn is
// sent SIGTERM, waited for and started again on its port; from the moment the last one is ready, the time until
// every replica holds its share within ±15 % and keeps it for 10 s. The baseline, in the same run: the README's
// previous upstream (`max_fails=1 fail_timeout=1s`), everything else alike. Skipped, saying so, without
// PostgreSQL or nginx.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { executable, findPostgresBin, freePort, startBenchPostgres } from './bench-postgres.mjs';
import { startServerProcess } from './bench-server.mjs';

const QUICK = process.argv.includes('--quick');
const CLI = fileURLToPath(new URL('../dist/cjs/cli.js', import.meta.url));
const README = fileURLToPath(new URL('../README.md', import.meta.url));
const KEY = 'svs_bench_rolling_secret';
const TOKEN = 'bench-admin-token';
const CLIENTS = QUICK ? 90 : 300;
const TOLERANCE = 0.15;
const STABLE_MS = 10_000;
const LIMIT_MS = 120_000;
const WAIT_MS = 60_000;

const pgBin = findPostgresBin();
const nginxBin = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin']
  .map((dir) => join(dir, 'nginx'))
  .find(executable);
if (pgBin === undefined || nginxBin === undefined) {
  console.log(`rolling-split bench skipped: ${pgBin === undefined ? 'PostgreSQL' : 'nginx'} is not installed`);
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), 'vane-bench-rolling-'));
const seedPath = join(dir, 'bench.seed.json');
writeFileSync(seedPath, JSON.stringify({ services: { bench: { kind: 'backend', keys: [KEY], configs: { a: 1 } } } }));

/** The README's fleet block with its upstreams and plain `listen` on loopback ports; its TLS lines left out. */
function readmeSite(port, upstreams, upstreamParameters) {
  const block = [...readFileSync(README, 'utf8').matchAll(/```nginx\n([\s\S]*?)```/g)]
    .map((m) => m[1])
    .find((b) => /^upstream /m.test(b));
  if (block === undefined) throw new Error(`${README} prints no nginx block with an upstream`);
  let next = 0;
  return block
    .split('\n')
    .flatMap((line) => {
      const server = /^(\s*server )\S+( .*)?;$/.exec(line);
      if (server) {
        const upstream = upstreams[next++];
        const parameters = upstreamParameters ?? server[2] ?? '';
        return upstream === undefined ? [] : [`${server[1]}127.0.0.1:${upstream}${parameters};`];
      }
      if (/^\s*listen \S+ ssl;$/.test(line) || /^\s*ssl_certificate/.test(line)) return [];
      if (/^\s*listen \S+;$/.test(line)) return [line.replace(/listen \S+;/, `listen 127.0.0.1:${port};`)];
      return [line];
    })
    .join('\n');
}

async function startNginx(upstreams, upstreamParameters) {
  const home = mkdtempSync(join(dir, 'nginx-'));
  const port = await freePort();
  const config = join(home, 'nginx.conf');
  writeFileSync(
    config,
    [
      'daemon off;',
      ...(process.getuid?.() === 0 ? ['user root root;'] : []),
      'worker_processes 1;',
      `pid ${join(home, 'nginx.pid')};`,
      'worker_rlimit_nofile 8000;',
      'events { worker_connections 4096; }',
      'http {',
      '  access_log off;',
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${join(home, t)};`),
      readmeSite(port, upstreams, upstreamParameters),
      '}',
      '',
    ].join('\n'),
  );
  const child = spawn(nginxBin, ['-p', home, '-e', join(home, 'error.log'), '-c', config], { stdio: 'ignore' });
  await until(
    () =>
      get(port, '/', 'x.localhost').then(
        () => true,
        () => false,
      ),
    'nginx to accept',
    WAIT_MS,
  );
  return {
    port,
    errorLog: () => readFileSync(join(home, 'error.log'), 'utf8'),
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

function get(port, path, host) {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, setHost: false, headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode, body }));
    })
      .on('error', reject)
      .end();
  });
}

async function until(check, what, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A raw SSE client through nginx: reconnects after a `goaway`'s delay, or at once when its stream is cut. */
class Client {
  refusals = 0;
  #closed = false;
  #req;
  constructor(port) {
    this.port = port;
    this.#connect();
  }
  #connect() {
    if (this.#closed) return;
    let delay = 0;
    const again = () => setTimeout(() => this.#connect(), delay);
    this.#req = request(
      {
        host: '127.0.0.1',
        port: this.port,
        path: '/v1/stream',
        setHost: false,
        headers: { host: `bench.localhost:${this.port}`, accept: 'text/event-stream', 'x-service-api-key': KEY },
      },
      (res) => {
        if (res.statusCode !== 200) this.refusals++;
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          const goaway = /event: goaway\ndata: \{"reconnect_in_ms":(\d+)\}/.exec(chunk);
          if (goaway) delay = Number(goaway[1]);
        });
        res.once('close', again);
      },
    );
    this.#req.once('error', again);
    this.#req.end();
  }
  close() {
    this.#closed = true;
    this.#req?.destroy();
  }
}

async function streamsOn(port) {
  const { body } = await get(port, '/metrics', `127.0.0.1:${port}`);
  const lines = body.split('\n');
  const sum = (prefix) => lines.filter((l) => l.startsWith(prefix)).reduce((s, l) => s + Number(l.split(' ').pop()), 0);
  return { streams: sum('vane_streams_open{'), goaways: sum('vane_goaway_sent_total{reason="rebalance"}') };
}

/** One rolling restart behind nginx with `upstreamParameters` (undefined: the README's as printed). */
async function rollingRestart(pg, name, upstreamParameters) {
  const store = await pg.createDatabase(`bench_rolling_${name}`);
  const ports = [await freePort(), await freePort(), await freePort()];
  // Every process started, to stop whatever a failure leaves running.
  const started = [];
  const start = (port) =>
    startServerProcess(CLI, {
      seedPath,
      adminToken: TOKEN,
      rootKey: Buffer.alloc(32, 7).toString('base64'),
      store,
      port,
      timeoutMs: WAIT_MS,
    }).then((replica) => {
      started.push(replica);
      return replica;
    });
  const replicas = [await start(ports[0])];
  replicas.push(...(await Promise.all(ports.slice(1).map(start))));
  const nginx = await startNginx(ports, upstreamParameters);
  const clients = [];
  const counts = async () => Promise.all(ports.map((p) => streamsOn(p).catch(() => ({ streams: 0, goaways: 0 }))));
  const total = (c) => c.reduce((s, r) => s + r.streams, 0);
  try {
    for (let i = 0; i < CLIENTS; i++) clients.push(new Client(nginx.port));
    await until(async () => total(await counts()) === CLIENTS, 'every stream open', WAIT_MS);
    for (const [i, port] of ports.entries()) {
      await replicas[i].stop();
      replicas[i] = await start(port);
      await until(
        () =>
          get(port, '/readyz', `127.0.0.1:${port}`).then(
            (r) => r.status === 200,
            () => false,
          ),
        'a restarted replica ready',
        WAIT_MS,
      );
    }
    const readyAt = Date.now();
    const mean = CLIENTS / ports.length;
    let within = undefined;
    let last = [];
    while (Date.now() - readyAt < LIMIT_MS) {
      last = await counts();
      const even = total(last) === CLIENTS && last.every((r) => Math.abs(r.streams - mean) <= mean * TOLERANCE);
      if (!even) within = undefined;
      else if (within === undefined) within = Date.now();
      else if (Date.now() - within >= STABLE_MS) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const stable = within !== undefined && Date.now() - within >= STABLE_MS;
    return {
      name,
      splitMs: stable ? within - readyAt : undefined,
      split: last.map((r) => r.streams).join(' / '),
      goaways: last.reduce((s, r) => s + r.goaways, 0),
      refusals: clients.reduce((s, c) => s + c.refusals, 0),
      noLiveUpstreams: nginx.errorLog().split('no live upstreams').length - 1,
    };
  } finally {
    for (const client of clients) client.close();
    await nginx.stop();
    await Promise.all(started.map((r) => r.stop()));
  }
}

const pg = await startBenchPostgres(pgBin);
try {
  const readme = await rollingRestart(pg, 'readme');
  const baseline = await rollingRestart(pg, 'baseline', ' max_fails=1 fail_timeout=1s');
  const [server] = await pg.query('SHOW server_version');
  console.log(
    `\nnode ${process.version}, PostgreSQL ${server.server_version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), ` +
      `load average ${loadavg()[0].toFixed(1)}, ${QUICK ? 'quick run' : 'full run'}; ${CLIENTS} streams, 3 replicas\n`,
  );
  console.log(
    '| rolling restart behind nginx | time to a stable split (±15 %, held 10 s) | split then | rebalance goaways since the restarts | non-200 streams | "no live upstreams" |',
  );
  console.log('|---|---:|---|---:|---:|---:|');
  for (const r of [readme, baseline]) {
    const label = r === readme ? "README's upstream (`max_fails=0`)" : 'baseline: `max_fails=1 fail_timeout=1s`';
    const time = r.splitMs === undefined ? `not within ${LIMIT_MS / 1000} s` : `${(r.splitMs / 1000).toFixed(1)} s`;
    console.log(`| ${label} | ${time} | ${r.split} | ${r.goaways} | ${r.refusals} | ${r.noLiveUpstreams} |`);
  }
  if (readme.splitMs !== undefined && baseline.splitMs !== undefined) {
    console.log(`\nratio README / baseline: ${(readme.splitMs / baseline.splitMs).toFixed(2)}×`);
  }
} finally {
  await pg.stop();
  rmSync(dir, { recursive: true, force: true });
}
