// The newcomer's path, end to end (`npm run test:newcomer`; CI runs it after `npm test`):
// every package packed with `npm pack`, four fresh apps made in a temporary directory from the root
// README alone (NestJS 11 in CommonJS with its jest test, NestJS 12 as ES modules, Express 4 in
// CommonJS, Express 5 as an ES module), the README's install lines run with the packed tarballs in
// place of the @vane/* names (everything else comes from the npm registry), built, started against
// the local server that one app installed (`npx vane-local-server`), a guarded route called, the flag
// flipped through the admin API, the new answer seen.
//
// What does not come from the README is what `nest new` or `npm init` gives an app before it reads
// the README: package.json, tsconfig.json, the framework itself and its dev tools (`skeleton` below).
// The README's code blocks are taken as shown there (scripts/readme-snippets.mjs checks elsewhere
// that they equal the tested sources under examples/).
//
// Slow (four npm installs): not part of `npm test`. Network: the npm registry for installs; every
// request of the test itself goes to 127.0.0.1.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { snippets } from '../../scripts/readme-snippets.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const ADMIN_TOKEN = 'newcomer-admin-token';
const API_KEY = 'svs_shop_local_secret'; // the demo seed's secret key, as the README's run lines use it
const WAIT_MS = 30_000; // every wait for a process or an answer is bounded by this
const run = promisify(execFile);

/** The README's install line whose comment names `label` (e.g. "NestJS 11"), as npm arguments. */
function installLine(label) {
  const line = README.split('\n').find((l) => l.startsWith('npm install ') && l.includes(`# ${label} `));
  assert.ok(line, `README.md has no install line commented "# ${label} …"`);
  return line.split('#')[0].trim().split(/\s+/).slice(1);
}

/** The README's code block cut from `source` (examples/…#name), as the README shows it. */
function readmeBlock(source) {
  const [file, name] = source.split('#');
  const found = snippets(README).find((s) => s.file === file && s.name === name);
  assert.ok(found, `README.md shows no snippet ${source}`);
  return found.shown;
}

/** An npm command in `cwd`; its output goes to a log file, shown when it fails. */
async function npm(cwd, args, env = {}) {
  try {
    return (
      await run('npm', args, {
        cwd,
        env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', ...env },
        maxBuffer: 64 * 1024 * 1024,
        timeout: 600_000,
      })
    ).stdout;
  } catch (error) {
    throw new Error(`npm ${args.join(' ')} in ${cwd} failed:\n${error.stdout}\n${error.stderr}`);
  }
}

/** A child process whose output lines are kept, with a bounded wait for a line. */
function start(name, cwd, args, env) {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines = [];
  const waiters = new Set();
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      lines.push(line);
      if (process.env.NEWCOMER_VERBOSE) console.log(`[${name}] ${line}`);
      for (const waiter of waiters) waiter();
    });
  }
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return {
    child,
    lines,
    exited,
    /** The first match of `pattern` in a line printed so far or later. */
    waitFor(pattern, what) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = lines.map((l) => pattern.exec(l)).find(Boolean);
          if (!match) return;
          cleanup();
          resolve(match);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`${name}: no ${what} within ${WAIT_MS} ms; it printed:\n${lines.join('\n')}`));
        }, WAIT_MS);
        const gone = () => {
          cleanup();
          reject(new Error(`${name} exited before ${what}; it printed:\n${lines.join('\n')}`));
        };
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
          child.off('exit', gone);
        };
        waiters.add(check);
        child.once('exit', gone);
        check();
      });
    },
    /** SIGTERM, then a bounded wait for the exit (SIGKILL past it). */
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), WAIT_MS);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
}

/** One HTTP request to loopback, answered whole. */
function http(method, url, { headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: false, timeout: WAIT_MS }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode, text }));
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${url}: no answer within ${WAIT_MS} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** A server-sent events response whose `data` lines are collected, with a bounded wait for one. */
function openEvents(url) {
  return new Promise((resolve, reject) => {
    const data = [];
    const waiters = new Set();
    const req = request(url, { agent: false, headers: { accept: 'text/event-stream' } }, (res) => {
      let buffer = '';
      res.setEncoding('utf8').on('data', (chunk) => {
        buffer += chunk;
        const lines = buffer.split('\n');
        buffer = lines.pop();
        for (const line of lines) if (line.startsWith('data:')) data.push(line.slice(5).trim());
        for (const waiter of waiters) waiter();
      });
      resolve({
        waitFor(pattern, what) {
          return new Promise((ok, fail) => {
            const check = () => {
              if (!data.some((d) => pattern.test(d))) return;
              clearTimeout(timer);
              waiters.delete(check);
              ok();
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              fail(new Error(`${url}: no ${what} within ${WAIT_MS} ms; events: ${data.join(' | ')}`));
            }, WAIT_MS);
            waiters.add(check);
            check();
          });
        },
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const work = mkdtempSync(join(tmpdir(), 'vane-newcomer-'));
const tarballs = join(work, 'tarballs');
/** `@vane/x` → the path of its packed tarball. */
const packed = new Map();
let server; // the local server, started from the Express 4 app's install
let serverUrl;

/** The README's npm arguments with every @vane/* package replaced by its tarball. */
function withTarballs(args) {
  return args.map((arg) => packed.get(arg) ?? arg);
}

/** Sets a flag of the demo service through the admin API. */
async function setFlag(key, isEnabled) {
  const answer = await http('PUT', `${serverUrl}/admin/v1/services/shop/flags/${key}`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ is_enabled: isEnabled }),
  });
  assert.equal(answer.status, 200, answer.text);
}

/** Sets a config of the demo service through the admin API. */
async function setConfig(key, value) {
  const answer = await http('PUT', `${serverUrl}/admin/v1/services/shop/configs/${key}`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ value }),
  });
  assert.equal(answer.status, 200, answer.text);
}

/** Writes an app's skeleton (what `nest new` / `npm init` gives), then its README files, then runs the README's install. */
async function makeApp(app) {
  const dir = join(work, app.name);
  mkdirSync(dir, { recursive: true });
  for (const [file, content] of Object.entries(app.skeleton)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), typeof content === 'string' ? content : JSON.stringify(content, null, 2) + '\n');
  }
  for (const [file, source] of Object.entries(app.files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), readmeBlock(source));
  }
  await npm(dir, [...withTarballs(installLine(app.installLabel)), '--no-audit', '--prefer-offline']);
  // The app runs our packed @vane/client, one copy, not a registry package of the same name.
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8'));
  const clients = Object.entries(lock.packages).filter(([path]) => path.endsWith('node_modules/@vane/client'));
  assert.deepEqual(
    clients.map(([path, entry]) => [path, entry.resolved?.startsWith('file:')]),
    [['node_modules/@vane/client', true]],
  );
  return dir;
}

/** Starts an app against the local server; resolves with its base URL on 127.0.0.1. */
async function startApp(app, dir) {
  const proc = start(app.name, dir, app.run, {
    VANE_BASE_URL: serverUrl.replace('127.0.0.1', 'shop.localhost'),
    VANE_API_KEY: API_KEY,
    PORT: '0',
  });
  const [, port] = await proc.waitFor(/listening on http:\/\/\S+:(\d+)\/?$/, 'listening line');
  return { proc, url: `http://127.0.0.1:${port}` };
}

/** The guarded route answers, the flag is flipped, the answer changes; `changed` waits for the app to have the flip. */
async function flipAndSee(url, waitForChange) {
  const before = await http('GET', `${url}/checkout`);
  assert.equal(before.status, 200, before.text);
  assert.deepEqual(JSON.parse(before.text), { checkout: 'new' });
  const payments = await http('GET', `${url}/payments`);
  assert.deepEqual(JSON.parse(payments.text), { stripeConfigured: true });
  await waitForChange(() => setFlag('new-checkout', false));
  const after = await http('GET', `${url}/checkout`);
  assert.equal(after.status, 404, after.text);
}

const nestTsconfigBuild = { extends: './tsconfig.json', exclude: ['node_modules', 'dist', '**/*spec.ts'] };

const APPS = [
  {
    name: 'express4-cjs',
    installLabel: 'Express 4',
    skeleton: { 'package.json': { name: 'express4-cjs', version: '0.0.0', private: true } },
    files: { 'server.js': 'examples/express/server.js#express4-cjs' },
    run: ['server.js'],
  },
  {
    name: 'express5-esm',
    installLabel: 'Express 5',
    skeleton: { 'package.json': { name: 'express5-esm', version: '0.0.0', private: true } },
    files: { 'server.mjs': 'examples/express/server.mjs#express5-esm' },
    run: ['server.mjs'],
  },
  {
    name: 'nest11-cjs',
    installLabel: 'NestJS 11',
    skeleton: {
      // A NestJS 11 project as it was generated: CommonJS, jest with ts-jest over src/**/*.spec.ts.
      'package.json': {
        name: 'nest11-cjs',
        version: '0.0.0',
        private: true,
        scripts: { build: 'tsc -p tsconfig.build.json', test: 'jest' },
        dependencies: {
          '@nestjs/common': '^11.0.0',
          '@nestjs/core': '^11.0.0',
          '@nestjs/platform-express': '^11.0.0',
          'reflect-metadata': '^0.2.2',
          rxjs: '^7.8.1',
        },
        devDependencies: {
          '@nestjs/testing': '^11.0.0',
          '@types/jest': '^30.0.0',
          '@types/node': '^20.19.0',
          '@types/supertest': '^6.0.2',
          jest: '^30.0.0',
          supertest: '^7.0.0',
          'ts-jest': '^29.4.0',
          typescript: '^5.7.3',
        },
        jest: {
          moduleFileExtensions: ['js', 'json', 'ts'],
          rootDir: 'src',
          testRegex: '.*\\.spec\\.ts$',
          transform: { '^.+\\.(t|j)s$': 'ts-jest' },
          testEnvironment: 'node',
        },
      },
      'tsconfig.json': {
        compilerOptions: {
          module: 'commonjs',
          declaration: false,
          emitDecoratorMetadata: true,
          experimentalDecorators: true,
          allowSyntheticDefaultImports: true,
          esModuleInterop: true,
          target: 'ES2021',
          outDir: './dist',
          rootDir: './src',
          skipLibCheck: true,
          strictNullChecks: true,
        },
        include: ['src'],
      },
      'tsconfig.build.json': nestTsconfigBuild,
    },
    files: {
      'src/app.module.ts': 'examples/nestjs/src/app.module.ts#app-module',
      'src/main.ts': 'examples/nestjs/src/main.ts#main',
      'src/app.spec.ts': 'examples/nestjs/src/app.spec.ts#app-spec',
    },
    build: true,
    jest: true,
    run: ['dist/main.js'],
  },
  {
    name: 'nest12-esm',
    installLabel: 'NestJS 12',
    skeleton: {
      // A NestJS 12 project: ES modules only.
      'package.json': {
        name: 'nest12-esm',
        version: '0.0.0',
        private: true,
        type: 'module',
        scripts: { build: 'tsc -p tsconfig.build.json' },
        dependencies: {
          '@nestjs/common': '^12.0.0',
          '@nestjs/core': '^12.0.0',
          '@nestjs/platform-express': '^12.0.0',
          'reflect-metadata': '^0.2.2',
          rxjs: '^7.8.1',
        },
        devDependencies: { '@types/node': '^20.19.0', typescript: '^5.7.3' },
      },
      'tsconfig.json': {
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          emitDecoratorMetadata: true,
          experimentalDecorators: true,
          esModuleInterop: true,
          target: 'ES2023',
          outDir: './dist',
          rootDir: './src',
          skipLibCheck: true,
          strictNullChecks: true,
        },
        include: ['src'],
      },
      'tsconfig.build.json': nestTsconfigBuild,
    },
    files: {
      'src/app.module.ts': 'examples/nestjs/src/app.module.ts#app-module',
      'src/main.ts': 'examples/nestjs/src/main.ts#main',
    },
    build: true,
    run: ['dist/main.js'],
  },
];

describe('a newcomer, from the README and the packed packages', { concurrency: 1 }, () => {
  before(async () => {
    mkdirSync(tarballs);
    const names = ['client', 'nestjs', 'express', 'local-server'];
    await npm(ROOT, ['pack', ...names.flatMap((n) => ['--workspace', `libs/${n}`]), '--pack-destination', tarballs]);
    for (const file of readdirSync(tarballs)) {
      const name = /^vane-(.+)-\d+\.\d+\.\d+\.tgz$/.exec(file)?.[1];
      if (name) packed.set(`@vane/${name}`, join(tarballs, file));
    }
    assert.deepEqual([...packed.keys()].sort(), names.map((n) => `@vane/${n}`).sort());
  });

  after(async () => {
    await server?.stop();
    if (!process.env.NEWCOMER_KEEP) rmSync(work, { recursive: true, force: true });
    else console.log(`kept ${work}`);
  });

  const dirs = new Map();

  it('Express 4 (CommonJS): installs from the README, and its npx vane-local-server is ours', async () => {
    const app = APPS[0];
    const dir = await makeApp(app);
    dirs.set(app.name, dir);
    // The README's run section: the local server as a dev dependency, then `npx vane-local-server`.
    const serverLine = README.split('\n').find((l) => l.startsWith('npm install --save-dev @vane/local-server'));
    assert.ok(serverLine, 'README.md has no "npm install --save-dev @vane/local-server" line');
    await npm(dir, [...withTarballs(serverLine.trim().split(/\s+/).slice(1)), '--no-audit', '--prefer-offline']);
    // `npx` as a reader types it; --no: never fetch a registry package of that name if the link is missing.
    const { stdout: help } = await run('npx', ['--no', '--', 'vane-local-server', '--help'], {
      cwd: dir,
      timeout: WAIT_MS,
    });
    assert.match(help, /^Usage: vane-local-server /);
    const seed = 'node_modules/@vane/local-server/seeds/demo.seed.json';
    assert.ok(README.includes(`npx vane-local-server --seed ${seed}`), 'the README starts the server on the demo seed');
    // The bin link npm made, run directly (npx would leave an npm process between us and the server).
    server = start('vane', dir, ['node_modules/.bin/vane-local-server', '--seed', seed, '--port', '0'], {
      VANE_ADMIN_TOKEN: ADMIN_TOKEN,
    });
    [, serverUrl] = await server.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/, 'listening line');
  });

  for (const app of APPS) {
    it(`${app.name}: builds, starts against the local server, and follows a flag flip`, async () => {
      assert.ok(serverUrl, 'the local server is running');
      const dir = dirs.get(app.name) ?? (await makeApp(app));
      if (app.build) await npm(dir, ['run', 'build']);
      if (app.jest) {
        const out = await npm(dir, ['test'], { CI: 'true' });
        assert.doesNotMatch(out, /Must use import to load ES Module/);
      }
      await setFlag('new-checkout', true);
      const { proc, url } = await startApp(app, dir);
      try {
        if (app.name.startsWith('nest')) {
          // The observable route: the greeting now, then the change; a change made after the flip
          // proves the app has applied the flip (patches apply in order).
          const events = await openEvents(`${url}/greeting`);
          try {
            await events.waitFor(/"greeting":"Hello from the Vane local server"|"greeting":"after /, 'first greeting');
            const marker = `after ${app.name}`;
            await flipAndSee(url, async (flip) => {
              await flip();
              await setConfig('greeting.text', marker);
              await events.waitFor(new RegExp(`"greeting":"${marker}"`), 'greeting after the flip');
            });
          } finally {
            events.close();
          }
        } else {
          await flipAndSee(url, async (flip) => {
            const seen = proc.waitFor(/vane: flag new-checkout changed/, 'change line');
            await flip();
            await seen;
          });
        }
      } finally {
        const { code, signal } = await proc.stop();
        assert.ok(code === 0 || signal === 'SIGTERM', `${app.name} stopped with ${code ?? signal}`);
      }
    });
  }
});

// Fastify: the same path for the two quick starts of libs/fastify/README.md (Fastify 5 as an ES module,
// Fastify 4 in CommonJS), on their own: their own tarballs, work directory and local server (started
// from the first app's install, as that README says). Only `fastify` comes from `npm init`'s world:
// the rest is the README's install lines.
const FASTIFY_README = readFileSync(join(ROOT, 'libs/fastify/README.md'), 'utf8');

const FASTIFY_APPS = [
  {
    name: 'fastify5-esm',
    installLabel: 'Fastify 5',
    files: { 'server.mjs': 'examples/fastify/server.mjs#fastify5-esm' },
    run: ['server.mjs'],
  },
  {
    name: 'fastify4-cjs',
    installLabel: 'Fastify 4',
    files: { 'server.js': 'examples/fastify/server.js#fastify4-cjs' },
    run: ['server.js'],
  },
];

describe('a newcomer to Fastify, from libs/fastify/README.md and the packed packages', { concurrency: 1 }, () => {
  let fastifyWork;
  const fastifyPacked = new Map();
  let fastifyServer;
  let fastifyServerUrl;
  const fastifyDirs = new Map();

  /** libs/fastify/README.md's install line whose comment names `label`, with the @vane/* names packed. */
  function fastifyInstall(label) {
    const line = FASTIFY_README.split('\n').find((l) => l.startsWith('npm install ') && l.includes(`# ${label} `));
    assert.ok(line, `libs/fastify/README.md has no install line commented "# ${label} …"`);
    return line
      .split('#')[0]
      .trim()
      .split(/\s+/)
      .slice(1)
      .map((arg) => fastifyPacked.get(arg) ?? arg);
  }

  /** A code block of libs/fastify/README.md, as shown there. */
  function fastifyBlock(source) {
    const [file, name] = source.split('#');
    const found = snippets(FASTIFY_README).find((s) => s.file === file && s.name === name);
    assert.ok(found, `libs/fastify/README.md shows no snippet ${source}`);
    return found.shown;
  }

  async function makeFastifyApp(app) {
    const dir = join(fastifyWork, app.name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: app.name, version: '0.0.0', private: true }));
    for (const [file, source] of Object.entries(app.files)) writeFileSync(join(dir, file), fastifyBlock(source));
    await npm(dir, [...fastifyInstall(app.installLabel), '--no-audit', '--prefer-offline']);
    const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8'));
    const clients = Object.entries(lock.packages).filter(([path]) => path.endsWith('node_modules/@vane/client'));
    assert.deepEqual(
      clients.map(([path, entry]) => [path, entry.resolved?.startsWith('file:')]),
      [['node_modules/@vane/client', true]],
    );
    return dir;
  }

  async function setFastifyFlag(key, isEnabled) {
    const answer = await http('PUT', `${fastifyServerUrl}/admin/v1/services/shop/flags/${key}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ is_enabled: isEnabled }),
    });
    assert.equal(answer.status, 200, answer.text);
  }

  before(async () => {
    fastifyWork = mkdtempSync(join(tmpdir(), 'vane-newcomer-fastify-'));
    const out = join(fastifyWork, 'tarballs');
    mkdirSync(out);
    const names = ['client', 'fastify', 'local-server'];
    await npm(ROOT, ['pack', ...names.flatMap((n) => ['--workspace', `libs/${n}`]), '--pack-destination', out]);
    for (const file of readdirSync(out)) {
      const name = /^vane-(.+)-\d+\.\d+\.\d+\.tgz$/.exec(file)?.[1];
      if (name) fastifyPacked.set(`@vane/${name}`, join(out, file));
    }
    assert.deepEqual([...fastifyPacked.keys()].sort(), names.map((n) => `@vane/${n}`).sort());
  });

  after(async () => {
    await fastifyServer?.stop();
    if (!fastifyWork) return;
    if (!process.env.NEWCOMER_KEEP) rmSync(fastifyWork, { recursive: true, force: true });
    else console.log(`kept ${fastifyWork}`);
  });

  it('Fastify 5 (ES module): installs from the README, and its npx vane-local-server is ours', async () => {
    const app = FASTIFY_APPS[0];
    const dir = await makeFastifyApp(app);
    fastifyDirs.set(app.name, dir);
    const serverLine = FASTIFY_README.split('\n').find((l) =>
      l.startsWith('npm install --save-dev @vane/local-server'),
    );
    assert.ok(serverLine, 'libs/fastify/README.md has no "npm install --save-dev @vane/local-server" line');
    const args = serverLine
      .trim()
      .split(/\s+/)
      .slice(1)
      .map((arg) => fastifyPacked.get(arg) ?? arg);
    await npm(dir, [...args, '--no-audit', '--prefer-offline']);
    const seed = 'node_modules/@vane/local-server/seeds/demo.seed.json';
    assert.ok(FASTIFY_README.includes(`npx vane-local-server --seed ${seed}`), 'the README starts the demo seed');
    fastifyServer = start('vane-fastify', dir, ['node_modules/.bin/vane-local-server', '--seed', seed, '--port', '0'], {
      VANE_ADMIN_TOKEN: ADMIN_TOKEN,
    });
    [, fastifyServerUrl] = await fastifyServer.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/, 'listening line');
  });

  for (const app of FASTIFY_APPS) {
    it(`${app.name}: starts against the local server, and follows a flag flip`, async () => {
      assert.ok(fastifyServerUrl, 'the local server is running');
      const dir = fastifyDirs.get(app.name) ?? (await makeFastifyApp(app));
      await setFastifyFlag('new-checkout', true);
      const proc = start(app.name, dir, app.run, {
        VANE_BASE_URL: fastifyServerUrl.replace('127.0.0.1', 'shop.localhost'),
        VANE_API_KEY: API_KEY,
        PORT: '0',
      });
      try {
        const [, port] = await proc.waitFor(/^listening on http:\/\/\S+:(\d+)\/?$/, 'listening line');
        const url = `http://127.0.0.1:${port}`;
        const before = await http('GET', `${url}/checkout`);
        assert.equal(before.status, 200, before.text);
        assert.deepEqual(JSON.parse(before.text), { checkout: 'new' });
        const payments = await http('GET', `${url}/payments`);
        assert.deepEqual(JSON.parse(payments.text), { stripeConfigured: true });
        const seen = proc.waitFor(/vane: flag new-checkout changed/, 'change line');
        await setFastifyFlag('new-checkout', false);
        await seen;
        const after = await http('GET', `${url}/checkout`);
        assert.equal(after.status, 404, after.text);
        assert.match(after.text, /"message":"Route GET:\/checkout not found"/); // Fastify's own 404
      } finally {
        const { code, signal } = await proc.stop();
        assert.ok(code === 0 || signal === 'SIGTERM', `${app.name} stopped with ${code ?? signal}`);
      }
    });
  }
});
