// The newcomer's path, end to end (`npm run test:newcomer`; CI runs it after `npm test`):
// every package packed with `npm pack`, four fresh apps made in a temporary directory from the root
// README alone (NestJS 11 in CommonJS with jest, NestJS 12 as ES modules with vitest and TypeScript 6
// as `nest new` 12 makes it, Express 4 in CommonJS, Express 5 as an ES module), the README's install
// lines run with the packed tarballs in place of the @vane/* names and the tarballs of their @vane/*
// dependencies named beside them, as a user installs `npm pack`'s output (everything else comes from the
// npm registry; no override), built, tested with the README's specs (the NestJS apps' unit and e2e specs,
// the Express and Fastify apps' `node --test` files), started against the
// local server that one app installed (`npx vane-local-server`), a guarded route called, the flag
// flipped through the admin API, the new answer seen; the NestJS apps also get the README's A/B route.
// Last, the install sizes the package READMEs state are measured (`du -sk node_modules` in empty
// projects) and printed.
//
// What does not come from the README is what `nest new` or `npm init` gives an app before it reads
// the README: package.json, tsconfig.json, the framework itself and its dev tools (`skeleton` below).
// The README's code blocks are taken as shown there (scripts/readme-snippets.mjs checks elsewhere
// that they equal the tested sources under examples/), changed only as the README says (`edit`).
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
import { withVaneDependencies } from '../../scripts/vane-tarballs.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const ADMIN_TOKEN = 'newcomer-admin-token';
const API_KEY = 'svs_shop_local_secret'; // the demo seed's secret key, as the README's run lines use it
const WAIT_MS = 30_000; // every wait for a process or an answer is bounded by this
const run = promisify(execFile);

/** The install line whose comment names `label` (e.g. "NestJS 11"), in the README or a guide, as npm arguments. */
function installLine(label) {
  const line = GUIDES.flatMap((text) => text.split('\n')).find(
    (l) => l.startsWith('npm install ') && l.includes(`# ${label} `),
  );
  assert.ok(line, `no README has an install line commented "# ${label} …"`);
  return line.split('#')[0].trim().split(/\s+/).slice(1);
}

/** The READMEs a newcomer reads: the root one, then the package guides it links to for the rest of a quick start. */
const GUIDES = [
  README,
  ...['nestjs', 'express', 'openfeature'].map((lib) => readFileSync(join(ROOT, `libs/${lib}/README.md`), 'utf8')),
];

/** The code block cut from `source` (examples/…#name), as the README (or the package guide) shows it. */
function readmeBlock(source) {
  const [file, name] = source.split('#');
  const found = GUIDES.flatMap((text) => snippets(text)).find((s) => s.file === file && s.name === name);
  assert.ok(found, `no README shows the snippet ${source}`);
  return found.shown;
}

/** An npm command in `cwd`; resolves with its output (stdout, then stderr, colours removed), shown when it fails. */
async function npm(cwd, args, env = {}) {
  try {
    const { stdout, stderr } = await run('npm', args, {
      cwd,
      env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', ...env },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 600_000,
    });
    // eslint-disable-next-line no-control-regex -- ESC starts every ANSI colour sequence
    return `${stdout}\n${stderr}`.replace(/\x1b\[[0-9;]*m/g, '');
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

/**
 * The README's npm arguments as a user installs `npm pack`'s output: every @vane/* package replaced by
 * its tarball, and the tarballs of the @vane/* packages they depend on (not on the registry before the
 * release) named too, unless the app in `dir` has them already (naming one again with --save-dev would
 * move it out of its dependencies).
 */
function withTarballs(args, dir, tarballs = packed) {
  const { dependencies = {}, devDependencies = {} } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const named = args.filter((arg) => arg.startsWith('@vane/'));
  const more = withVaneDependencies(named).filter(
    (name) => !named.includes(name) && !(name in dependencies) && !(name in devDependencies),
  );
  return [...args, ...more].map((arg) => {
    if (!arg.startsWith('@vane/')) return arg;
    assert.ok(tarballs.has(arg), `${arg} was not packed`);
    return tarballs.get(arg);
  });
}

/** Sets a flag of the demo service through the admin API. */
async function setFlag(key, isEnabled) {
  const answer = await http('PATCH', `${serverUrl}/admin/v1/services/shop/flags/${key}`, {
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

/**
 * The README's note for a NestJS 11 app tested with jest: relative specifiers without `.js` (jest
 * looks for the path as written).
 */
const withoutJs = (text) => text.replace(/from '(\.{1,2}\/[^']+)\.js'/g, "from '$1'");

/**
 * The README's "An A/B route" applied to its quick-start `src/app.module.ts`: both files imported
 * (`.js` in a NestJS 12 app), `abContext` beside `apiKey` in what `useFactory` returns,
 * `PricingController` in `controllers`.
 */
function addAbRoute(appModule, js) {
  const ext = js ? '.js' : '';
  let text =
    `import { abContextFromRequest } from './ab-context.factory${ext}';\n` +
    `import { PricingController } from './pricing.controller${ext}';\n` +
    appModule;
  const apiKey = /^(\s*)apiKey: config\.getOrThrow<string>\('VANE_API_KEY'\),\n/m;
  assert.match(text, apiKey, "the README's AppModule has its apiKey line");
  text = text.replace(apiKey, (line, indent) => `${line}${indent}abContext: abContextFromRequest,\n`);
  assert.ok(text.includes('controllers: [AppController],'), "the README's AppModule lists its controllers");
  return text.replace('controllers: [AppController],', 'controllers: [AppController, PricingController],');
}

/** Writes an app's skeleton (what `nest new` / `npm init` gives), then its README files, then runs the README's install. */
async function makeApp(app) {
  const dir = join(work, app.name);
  mkdirSync(dir, { recursive: true });
  for (const [file, content] of Object.entries(app.skeleton)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    const text =
      file === 'package.json'
        ? JSON.stringify(typeof content === 'string' ? JSON.parse(content) : content, null, 2) + '\n'
        : typeof content === 'string'
          ? content
          : JSON.stringify(content, null, 2) + '\n';
    writeFileSync(join(dir, file), text);
  }
  for (const [file, spec] of Object.entries(app.files)) {
    const { source, edit = (text) => text } = typeof spec === 'string' ? { source: spec } : spec;
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), edit(readmeBlock(source)));
  }
  await npm(dir, [...withTarballs(installLine(app.installLabel), dir), '--no-audit', '--prefer-offline']);
  // The app runs our packed @vane/client, one copy, not a registry package of the same name.
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8'));
  const clients = Object.entries(lock.packages).filter(([path]) => path.endsWith('node_modules/@vane/client'));
  assert.deepEqual(
    clients.map(([path, entry]) => [path, entry.resolved?.startsWith('file:')]),
    [['node_modules/@vane/client', true]],
  );
  return dir;
}

/** `node --test file` in `dir`, as a README says to run a test: it must pass at least one test and fail none. */
async function nodeTest(dir, file) {
  // NODE_TEST_CONTEXT left out: set by this suite's own runner, it would make the child report to us, not print.
  const env = { ...process.env, VANE_BASE_URL: '', VANE_API_KEY: '' };
  delete env.NODE_TEST_CONTEXT;
  const { stdout } = await run(process.execPath, ['--test', file], { cwd: dir, env, timeout: 120_000 }).catch((error) =>
    assert.fail(`node --test ${file} in ${dir} failed:\n${error.stdout}\n${error.stderr}`),
  );
  assert.match(stdout, /^# pass [1-9]\d*$/m, stdout);
  assert.match(stdout, /^# fail 0$/m, stdout);
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

/** The README's A/B route: 200 for a user the rule lets in, 404 for an anonymous one, no startup warning. */
async function seeAbRoute(url, proc) {
  const user = await http('GET', `${url}/pricing`, { headers: { 'x-user-id': 'u-1', 'x-country': 'DE' } });
  assert.equal(user.status, 200, user.text);
  assert.deepEqual(JSON.parse(user.text), { pricing: 'new', discount: 0.15 });
  const anonymous = await http('GET', `${url}/pricing`);
  assert.equal(anonymous.status, 404, anonymous.text);
  assert.ok(!proc.lines.some((l) => /needs the requesting user/.test(l)), proc.lines.join('\n'));
}

const nestTsconfigBuild = { extends: './tsconfig.json', exclude: ['node_modules', 'dist', '**/*spec.ts'] };

const APPS = [
  {
    name: 'express4-cjs',
    installLabel: 'Express 4',
    skeleton: { 'package.json': { name: 'express4-cjs', version: '0.0.0', private: true } },
    files: {
      'server.js': 'examples/express/server.js#express4-cjs',
      'server.test.js': 'examples/express/server.test.js#express4-test',
    },
    // libs/express/README.md's test, as it says to run it (once @vane/server is installed, below).
    nodeTests: ['server.test.js'],
    run: ['server.js'],
  },
  {
    name: 'express5-esm',
    installLabel: 'Express 5',
    skeleton: { 'package.json': { name: 'express5-esm', version: '0.0.0', private: true } },
    files: {
      'server.mjs': 'examples/express/server.mjs#express5-esm',
      'pricing.mjs': 'examples/express/pricing.mjs#express-ab-route',
    },
    run: ['server.mjs'],
    // libs/express/README.md's A/B route, the whole file, started once the quick start has passed.
    abApp: ['pricing.mjs'],
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
        scripts: {
          build: 'tsc -p tsconfig.build.json',
          test: 'jest',
          'test:e2e': 'jest --config ./test/jest-e2e.json',
        },
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
      'test/jest-e2e.json': {
        moduleFileExtensions: ['js', 'json', 'ts'],
        rootDir: '.',
        testEnvironment: 'node',
        testRegex: '.e2e-spec.ts$',
        transform: { '^.+\\.(t|j)s$': 'ts-jest' },
      },
    },
    files: {
      'src/app.module.ts': {
        source: 'examples/nestjs/src/app.module.ts#app-module',
        edit: (t) => addAbRoute(t, false),
      },
      'src/main.ts': 'examples/nestjs/src/main.ts#main',
      'src/pricing.controller.ts': 'examples/nestjs/src/pricing.controller.ts#pricing-controller',
      'src/ab-context.factory.ts': 'examples/nestjs/src/ab-context.factory.ts#ab-context',
      'src/app.spec.ts': { source: 'examples/nestjs/src/app.spec.ts#app-spec', edit: withoutJs },
      'test/app.e2e-spec.ts': { source: 'examples/nestjs/test/app.e2e-spec.ts#app-e2e-spec', edit: withoutJs },
    },
    build: true,
    tests: ['test', 'test:e2e'],
    abRoute: true,
    run: ['dist/main.js'],
  },
  {
    name: 'nest12-esm',
    installLabel: 'NestJS 12',
    // What `nest new` 12 generates by default (@nestjs/schematics 12, template `ts-esm`): ES modules,
    // TypeScript 6 in strict mode, `nest build`, vitest for the unit and e2e specs. Left out: its
    // lint, format, coverage and telemetry tools, which no step here runs.
    skeleton: {
      'package.json': {
        name: 'nest12-esm',
        version: '0.0.1',
        private: true,
        type: 'module',
        scripts: {
          build: 'nest build',
          'start:prod': 'node dist/main',
          test: 'vitest run',
          'test:e2e': 'vitest run --config ./vitest.config.e2e.ts',
        },
        dependencies: {
          '@nestjs/common': '^12.0.1',
          '@nestjs/core': '^12.0.1',
          '@nestjs/platform-express': '^12.0.1',
          'reflect-metadata': '^0.2.2',
          rxjs: '^7.8.1',
        },
        devDependencies: {
          '@nestjs/cli': '^12.0.0',
          '@nestjs/schematics': '^12.0.0',
          '@nestjs/testing': '^12.0.1',
          '@types/express': '^5.0.0',
          '@types/node': '^24.0.0',
          '@types/supertest': '^7.0.0',
          supertest: '^7.0.0',
          typescript: '^6.0.2',
          'vite-tsconfig-paths': '^5.1.4',
          vitest: '^4.1.2',
        },
      },
      'tsconfig.json': {
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          resolvePackageJsonExports: true,
          esModuleInterop: true,
          isolatedModules: true,
          declaration: true,
          removeComments: true,
          emitDecoratorMetadata: true,
          experimentalDecorators: true,
          allowSyntheticDefaultImports: true,
          target: 'ES2023',
          sourceMap: true,
          outDir: './dist',
          rootDir: '.',
          incremental: true,
          skipLibCheck: true,
          strict: true,
          strictPropertyInitialization: false,
          types: ['vitest/globals', 'node'],
        },
      },
      'tsconfig.build.json': {
        extends: './tsconfig.json',
        compilerOptions: { rootDir: './src' },
        include: ['src'],
        exclude: ['node_modules', 'test', 'dist', '**/*spec.ts'],
      },
      'nest-cli.json': {
        $schema: 'https://json.schemastore.org/nest-cli',
        collection: '@nestjs/schematics',
        sourceRoot: 'src',
        compilerOptions: { deleteOutDir: true },
      },
      'vitest.config.ts': [
        "import { defineConfig } from 'vitest/config';",
        "import tsconfigPaths from 'vite-tsconfig-paths';",
        '',
        'export default defineConfig({',
        '  plugins: [tsconfigPaths()],',
        "  test: { globals: true, root: './', include: ['**/*.spec.ts'] },",
        '});',
        '',
      ].join('\n'),
      'vitest.config.e2e.ts': [
        "import { defineConfig } from 'vitest/config';",
        "import tsconfigPaths from 'vite-tsconfig-paths';",
        '',
        'export default defineConfig({',
        '  plugins: [tsconfigPaths()],',
        "  test: { globals: true, root: './', include: ['**/*.e2e-spec.ts'] },",
        '});',
        '',
      ].join('\n'),
    },
    files: {
      'src/app.module.ts': { source: 'examples/nestjs/src/app.module.ts#app-module', edit: (t) => addAbRoute(t, true) },
      'src/main.ts': 'examples/nestjs/src/main.ts#main',
      'src/pricing.controller.ts': 'examples/nestjs/src/pricing.controller.ts#pricing-controller',
      'src/ab-context.factory.ts': 'examples/nestjs/src/ab-context.factory.ts#ab-context',
      'src/app.spec.ts': 'examples/nestjs/src/app.spec.ts#app-spec',
      'test/app.e2e-spec.ts': 'examples/nestjs/test/app.e2e-spec.ts#app-e2e-spec',
    },
    build: true,
    tests: ['test', 'test:e2e'],
    abRoute: true,
    run: ['dist/main.js'],
  },
];

describe('a newcomer, from the README and the packed packages', { concurrency: 1 }, () => {
  before(async () => {
    mkdirSync(tarballs);
    const names = ['common', 'client-core', 'client', 'browser', 'nestjs', 'express', 'server', 'cli', 'openfeature'];
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
    const serverLine = README.split('\n').find((l) => l.startsWith('npm install --save-dev @vane/server'));
    assert.ok(serverLine, 'README.md has no "npm install --save-dev @vane/server" line');
    await npm(dir, [...withTarballs(serverLine.trim().split(/\s+/).slice(1), dir), '--no-audit', '--prefer-offline']);
    // `npx` as a reader types it; --no: never fetch a registry package of that name if the link is missing.
    const { stdout: help } = await run('npx', ['--no', '--', 'vane-local-server', '--help'], {
      cwd: dir,
      timeout: WAIT_MS,
    });
    assert.match(help, /^Usage: vane-local-server /);
    const seed = 'node_modules/@vane/server/seeds/demo.seed.json';
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
      const { stdout: du } = await run('du', ['-sk', 'node_modules'], { cwd: dir });
      console.log(`${app.name}: node_modules ${du.split('\t')[0]} KiB`);
      // The README's specs, as the app's own scripts run them: no environment, no network.
      for (const script of app.tests ?? []) {
        const out = await npm(dir, ['run', script], { CI: 'true', VANE_BASE_URL: '', VANE_API_KEY: '' });
        assert.doesNotMatch(out, /Must use import to load ES Module/);
        // jest: "Tests:       1 passed, 1 total"; vitest: "Tests  1 passed (1)".
        assert.match(out, /Tests:?\s+[1-9]\d* passed/, `npm run ${script} ran no test:\n${out}`);
      }
      for (const file of app.nodeTests ?? []) await nodeTest(dir, file);
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
          if (app.abRoute) await seeAbRoute(url, proc);
        } else {
          await flipAndSee(url, async (flip) => {
            const seen = proc.waitFor(/vane: flag new-checkout changed/, 'change line');
            await flip();
            await seen;
          });
          if (app.abApp) {
            const ab = await startApp({ ...app, run: app.abApp }, dir);
            try {
              await seeAbRoute(ab.url, ab.proc);
            } finally {
              await ab.proc.stop();
            }
          }
        }
      } finally {
        const { code, signal } = await proc.stop();
        assert.ok(code === 0 || signal === 'SIGTERM', `${app.name} stopped with ${code ?? signal}`);
      }
    });
  }

  it('npx @vane/cli types: the declaration file of the demo service, in a fresh app', async () => {
    assert.ok(serverUrl, 'the local server is running');
    const dir = dirs.get(APPS[0].name);
    // As libs/cli/README.md says; its TypeScript comes with it (this app has none of its own).
    await npm(dir, [...withTarballs(['install', '--save-dev', '@vane/cli'], dir), '--no-audit', '--prefer-offline']);
    const baseUrl = `http://shop.localhost:${new URL(serverUrl).port}`;
    const env = { ...process.env, VANE_API_KEY: API_KEY };
    const vane = (args) => run('npx', ['--no', '--', '@vane/cli', ...args], { cwd: dir, env, timeout: WAIT_MS });
    const { stdout } = await vane(['types', '--base-url', baseUrl]);
    assert.match(stdout, /^wrote .*src\/vane-keys\.d\.ts: \d+ configs, \d+ flags, 2 secrets/);
    const declaration = readFileSync(join(dir, 'src/vane-keys.d.ts'), 'utf8');
    assert.match(declaration, /"new-checkout"/);
    assert.match(declaration, /"stripe\.api_key": "text"/);
    assert.doesNotMatch(declaration, /rk_test|BEGIN CERTIFICATE/, 'no secret value in the declaration file');
    assert.match((await vane(['types', '--check', '--base-url', baseUrl])).stdout, /is up to date/);
  });

  it('OpenFeature: the quick start from libs/openfeature/README.md evaluates on the demo seed and sees a config change', async () => {
    assert.ok(serverUrl, 'the local server is running');
    const dir = await makeApp({
      name: 'openfeature-esm',
      installLabel: 'OpenFeature',
      skeleton: { 'package.json': { name: 'openfeature-esm', version: '0.0.0', private: true } },
      files: { 'quick-start.mjs': 'examples/openfeature/quick-start.mjs#openfeature-quick-start' },
    });
    const proc = start('openfeature-esm', dir, ['quick-start.mjs'], {
      VANE_BASE_URL: serverUrl.replace('127.0.0.1', 'shop.localhost'),
      VANE_API_KEY: API_KEY,
    });
    try {
      await proc.waitFor(/^new-checkout: (true|false)$/, 'the flag');
      await proc.waitFor(/^greeting\.text: /, 'the config');
      await proc.waitFor(/^new-pricing for u-1 in DE: true$/, 'the A/B flag for a user in the rule');
      const marker = 'Hello from a newcomer';
      await setConfig('greeting.text', marker);
      await proc.waitFor(new RegExp(`^greeting\\.text changed: ${marker}$`), 'the config change');
    } finally {
      const { code, signal } = await proc.stop();
      assert.ok(code === 0 || signal === 'SIGTERM', `openfeature-esm stopped with ${code ?? signal}`);
    }
  });

  it('install sizes: each figure a package README states is what du -sk measures', async () => {
    const tgz = (name) => `@vane/${name}`; // named as in the READMEs; withTarballs installs the packed ones
    const clientReadme = readFileSync(join(ROOT, 'libs/client/README.md'), 'utf8');
    const awsLine = clientReadme.split('\n').find((l) => l.startsWith('npm install @smithy/'));
    assert.ok(awsLine, 'the client README has the install line of the AWS packages');
    // `--legacy-peer-deps`: peers (Express, Nest) left out, as the READMEs measure.
    const SIZES = [
      { readme: 'libs/client', after: 'Installed alone', install: [tgz('client')], own: '@vane/client' },
      {
        readme: 'libs/client',
        after: 'With them, the same project',
        install: [tgz('client'), ...awsLine.split(/\s+/).slice(2)],
      },
      {
        readme: 'libs/express',
        after: 'Install size:',
        install: [tgz('express'), tgz('client'), '--legacy-peer-deps'],
        own: '@vane/express',
      },
      {
        readme: 'libs/nestjs',
        after: 'Install size:',
        install: [tgz('nestjs'), tgz('client'), '--legacy-peer-deps'],
        own: '@vane/nestjs',
      },
      {
        readme: 'libs/server',
        after: 'Install size:',
        install: [tgz('server')],
        own: '@vane/server',
      },
    ];
    const kib = async (cwd, path) => Number((await run('du', ['-sk', path], { cwd })).stdout.split('\t')[0]);
    const wrong = [];
    for (const [i, size] of SIZES.entries()) {
      const dir = join(work, `size-${i}`);
      mkdirSync(dir);
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `size-${i}`, version: '0.0.0', private: true }));
      await npm(dir, [...withTarballs(['install', ...size.install], dir), '--no-audit', '--prefer-offline']);
      const total = await kib(dir, 'node_modules');
      const own = size.own ? await kib(dir, `node_modules/${size.own}`) : undefined;
      console.log(`${size.readme} (${size.after}): node_modules ${total} KiB${own ? `, ${size.own} ${own} KiB` : ''}`);
      // The README's sentence: "**5.3 MB** on disk (`du -sk node_modules` …: 5384 KiB, `@vane/client` itself 2744 KiB)".
      const text = readFileSync(join(ROOT, size.readme, 'README.md'), 'utf8').replace(/\s+/g, ' ');
      const from = text.indexOf(size.after);
      assert.ok(from !== -1, `${size.readme}/README.md says "${size.after}"`);
      const stated =
        /\*\*(\d+(?:\.\d)?) MB\*\* on disk \(`du -sk node_modules`[^)]*?: (\d+) KiB(?:, `[^`]+` itself (\d+) KiB)?/.exec(
          text.slice(from),
        );
      assert.ok(
        stated,
        `${size.readme}/README.md gives "**x MB** on disk (\`du -sk node_modules\` …: n KiB" after "${size.after}"`,
      );
      const [, mb, statedTotal, statedOwn] = stated.map(Number);
      assert.ok(Math.abs(mb - statedTotal / 1024) <= 0.1, `${size.readme}: ${mb} MB is not ${statedTotal} KiB`);
      // Within 10 %: du rounds to blocks, and the registry's versions of the dependencies move.
      const off = (a, b) => Math.abs(a - b) > b * 0.1;
      if (off(statedTotal, total))
        wrong.push(`${size.readme} (${size.after}): states ${statedTotal} KiB, measured ${total} KiB`);
      if (own !== undefined && (Number.isNaN(statedOwn) || off(statedOwn, own)))
        wrong.push(`${size.readme} (${size.after}): states ${size.own} ${statedOwn} KiB, measured ${own} KiB`);
    }
    assert.deepEqual(wrong, [], 'update the READMEs with the measured figures');
  });
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
    files: {
      'server.mjs': 'examples/fastify/server.mjs#fastify5-esm',
      'server.test.mjs': 'examples/fastify/server.test.mjs#fastify5-test',
    },
    // libs/fastify/README.md's test, as it says to run it (once @vane/server is installed).
    nodeTests: ['server.test.mjs'],
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

  /** libs/fastify/README.md's install line whose comment names `label`, with the packed tarballs, for `dir`. */
  function fastifyInstall(label, dir) {
    const line = FASTIFY_README.split('\n').find((l) => l.startsWith('npm install ') && l.includes(`# ${label} `));
    assert.ok(line, `libs/fastify/README.md has no install line commented "# ${label} …"`);
    return withTarballs(line.split('#')[0].trim().split(/\s+/).slice(1), dir, fastifyPacked);
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
    await npm(dir, [...fastifyInstall(app.installLabel, dir), '--no-audit', '--prefer-offline']);
    const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8'));
    const clients = Object.entries(lock.packages).filter(([path]) => path.endsWith('node_modules/@vane/client'));
    assert.deepEqual(
      clients.map(([path, entry]) => [path, entry.resolved?.startsWith('file:')]),
      [['node_modules/@vane/client', true]],
    );
    return dir;
  }

  async function setFastifyFlag(key, isEnabled) {
    const answer = await http('PATCH', `${fastifyServerUrl}/admin/v1/services/shop/flags/${key}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ is_enabled: isEnabled }),
    });
    assert.equal(answer.status, 200, answer.text);
  }

  before(async () => {
    fastifyWork = mkdtempSync(join(tmpdir(), 'vane-newcomer-fastify-'));
    const out = join(fastifyWork, 'tarballs');
    mkdirSync(out);
    const names = ['common', 'client-core', 'client', 'fastify', 'server'];
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
    const serverLine = FASTIFY_README.split('\n').find((l) => l.startsWith('npm install --save-dev @vane/server'));
    assert.ok(serverLine, 'libs/fastify/README.md has no "npm install --save-dev @vane/server" line');
    const args = withTarballs(serverLine.trim().split(/\s+/).slice(1), dir, fastifyPacked);
    await npm(dir, [...args, '--no-audit', '--prefer-offline']);
    const seed = 'node_modules/@vane/server/seeds/demo.seed.json';
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
      for (const file of app.nodeTests ?? []) await nodeTest(dir, file);
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
