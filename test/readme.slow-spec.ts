import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { VaneClient } from '@vane/client';
import { startVaneServer, type VaneServer } from '@vane/server';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { Logger } from '@nestjs/common';
import { VaneModule } from '@vane/nestjs';
import { abContextFromRequest } from '../examples/nestjs/src/ab-context.factory';
import { AppModule } from '../examples/nestjs/src/app.module';
import { PricingController } from '../examples/nestjs/src/pricing.controller';
import { get } from './support/http.js';
import { killLeftovers, spawnNode } from './support/process.js';
import { PROCESS_TEST_MS } from '@vane/test-harness';

// The README is documentation users copy from: keep it true.
const ROOT = resolve(__dirname, '..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const source = (file: string) => readFileSync(join(ROOT, file), 'utf8');

describe('README.md', () => {
  it('states the two commands of a fresh machine', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
  });

  it(
    'shows exactly the code of the sample apps that the end-to-end tests run',
    () => {
      const out = execFileSync(process.execPath, ['scripts/readme-snippets.mjs', '--check'], {
        cwd: ROOT,
        encoding: 'utf8',
      });
      expect(out).toMatch(/^[1-9]\d* snippets, 0 stale/);
    },
    PROCESS_TEST_MS,
  );

  it('sends the reader to the generated reference rather than option tables written by hand', () => {
    expect(readme).toContain('`npm run docs`');
    expect(readme).not.toMatch(/^\| `ttlMs` \|/m);
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
  });

  // What each code means and what to do: in the package's guide (the client's codes in the client's).
  it.each([
    ['libs/client/src/errors.ts', 'libs/client/README.md'],
    ['libs/nestjs/src', 'libs/nestjs/README.md'],
    ['libs/express/src', 'libs/express/README.md'],
  ])(
    'documents every error code of %s in %s',
    (path, guide) => {
      const documented = source(guide) + source('libs/client/README.md');
      const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', path], {
        cwd: ROOT,
        encoding: 'utf8',
      })
        .split('\n')
        .filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'));
      const environment = new Set(['VANE_BASE_URL', 'VANE_API_KEY', 'VANE_ADMIN_TOKEN']);
      const codes = new Set(
        files
          .flatMap((f) => [...source(f).matchAll(/'(VANE_[A-Z_]+)'/g)].map((m) => m[1]!))
          .filter((code) => !environment.has(code)),
      );
      expect(codes.size).toBeGreaterThan(0);
      for (const code of codes) expect(documented).toContain(`\`${code}\``);
    },
    PROCESS_TEST_MS,
  );
});

describe('the package READMEs', () => {
  it.each(['client', 'nestjs', 'express', 'server', 'openfeature', 'cli'])(
    'libs/%s/README.md names every dependency its package.json has',
    (name) => {
      const { dependencies = {} } = JSON.parse(source(`libs/${name}/package.json`)) as {
        dependencies?: Record<string, string>;
      };
      const text = source(`libs/${name}/README.md`);
      for (const dependency of Object.keys(dependencies)) expect(text).toContain(`\`${dependency}\``);
    },
  );
});

describe('docs/protocol.md', () => {
  const protocol = source('docs/protocol.md');

  it.each([
    'README.md',
    'libs/client/README.md',
    'libs/nestjs/README.md',
    'libs/express/README.md',
    'libs/fastify/README.md',
    'libs/server/README.md',
    'libs/cli/README.md',
  ])('%s links it', (file) => {
    expect(source(file)).toMatch(/\]\((\.\.\/\.\.\/)?docs\/protocol\.md\)/);
  });

  it('covers every section of the wire protocol, the key header and the healthy-interval rule', () => {
    for (let n = 1; n <= 11; n++) expect(protocol).toMatch(new RegExp(`^## ${n}\\. `, 'm'));
    expect(protocol).toContain('X-Service-API-Key');
    expect(protocol).toContain('`streamHealthyMs`, default 60 s');
    expect(readme).toContain('`X-Service-API-Key`');
  });

  it(
    'its .localhost example, run as it is, reaches a local server through Node fetch',
    async () => {
      const server = await startVaneServer({
        seed: { services: { shop: { keys: ['svs_shop_docs_secret'], configs: { answer: 42 } } } },
      });
      try {
        const { stdout } = await promisify(execFile)(process.execPath, ['examples/localhost/fetch-localhost.mjs'], {
          cwd: ROOT,
          timeout: 20_000,
          env: { ...process.env, VANE_BASE_URL: server.baseUrl('shop'), VANE_API_KEY: 'svs_shop_docs_secret' },
        });
        expect(stdout.trim()).toBe('200 1');
      } finally {
        await server.close();
      }
    },
    PROCESS_TEST_MS,
  );
});

// The quick starts, from their sources in this repository (the workspace packages, Express 5, NestJS 11):
// fast checks for `npm test`. `npm run test:newcomer` runs them as a newcomer would, from the README, in
// fresh apps on every supported major.
describe('the README quick starts, run here', () => {
  let server: VaneServer;
  const demoKey = 'svs_shop_local_secret';

  beforeEach(async () => {
    server = await startVaneServer({ seed: join(ROOT, 'libs/server/seeds/demo.seed.json') });
  });
  afterEach(async () => {
    await killLeftovers();
    await server.close();
  }, PROCESS_TEST_MS);

  it.each([
    'examples/express/server.js',
    'examples/express/server.mjs',
    'examples/fastify/server.js',
    'examples/fastify/server.mjs',
  ])(
    '%s: a guarded route, a secret, a config; a flag flip changes the answer; SIGTERM exits 0',
    async (file) => {
      const app = spawnNode([file], {
        cwd: ROOT,
        env: { ...process.env, VANE_BASE_URL: server.baseUrl('shop'), VANE_API_KEY: demoKey, PORT: '0' },
      });
      const [, port] = await app.nextLine(/listening on http:\/\/localhost:(\d+)$/);
      const url = `http://127.0.0.1:${port}`;
      expect(await get(`${url}/checkout`)).toMatchObject({ status: 200, body: { checkout: 'new' } });
      expect((await get(`${url}/payments`)).body).toEqual({ stripeConfigured: true });
      expect((await get(`${url}/greeting`)).body).toEqual({ greeting: 'Hello from the Vane local server' });
      const changed = app.nextLine(/vane: flag new-checkout changed/);
      server.admin.setFlag('shop', 'new-checkout', { is_enabled: false });
      await changed;
      expect((await get(`${url}/checkout`)).status).toBe(404);
      app.child.kill('SIGTERM');
      await expect(app.exited).resolves.toEqual({ code: 0, signal: null });
    },
    PROCESS_TEST_MS,
  );

  // The package READMEs' tests of those quick starts, whole files run as a reader runs them: `node --test`,
  // with the packages (here the workspaces) and nothing else; each starts a local server of its own.
  it.each(['examples/express/server.test.js', 'examples/fastify/server.test.mjs'])(
    'node --test %s passes',
    async (file) => {
      const { stdout } = await promisify(execFile)(process.execPath, ['--test', file], {
        cwd: ROOT,
        timeout: PROCESS_TEST_MS,
        env: { ...process.env, VANE_BASE_URL: '', VANE_API_KEY: '' },
      });
      expect(stdout).toMatch(/^# pass 1$/m);
      expect(stdout).toMatch(/^# fail 0$/m);
    },
    PROCESS_TEST_MS,
  );

  it(
    'examples/express/pricing.mjs: the A/B route serves a user in the rule, 404 to an anonymous one',
    async () => {
      const app = spawnNode(['examples/express/pricing.mjs'], {
        cwd: ROOT,
        env: { ...process.env, VANE_BASE_URL: server.baseUrl('shop'), VANE_API_KEY: demoKey, PORT: '0' },
      });
      const [, port] = await app.line(/listening on http:\/\/localhost:(\d+)$/);
      const url = `http://127.0.0.1:${port}/pricing`;
      expect(await get(url, { 'x-user-id': 'u-1', 'x-country': 'DE' })).toMatchObject({
        status: 200,
        body: { pricing: 'new', discount: 0.15 },
      });
      expect((await get(url)).status).toBe(404);
      app.child.kill('SIGTERM');
      await expect(app.exited).resolves.toEqual({ code: 0, signal: null });
    },
    PROCESS_TEST_MS,
  );

  it(
    'examples/openfeature/quick-start.mjs: flags, a config and an A/B flag on the demo seed; a config change reaches it',
    async () => {
      const app = spawnNode(['examples/openfeature/quick-start.mjs'], {
        cwd: ROOT,
        env: { ...process.env, VANE_BASE_URL: server.baseUrl('shop'), VANE_API_KEY: demoKey },
      });
      await app.line(/^new-checkout: true$/);
      await app.line(/^greeting\.text: Hello from the Vane local server$/);
      await app.line(/^new-pricing for u-1 in DE: true$/);
      const changed = app.nextLine(/^greeting\.text changed: Hello from a change$/);
      server.admin.setConfig('shop', 'greeting.text', 'Hello from a change');
      await changed;
      app.child.kill('SIGTERM');
      await expect(app.exited).resolves.toEqual({ code: 0, signal: null });
    },
    PROCESS_TEST_MS,
  );

  it('examples/nestjs: the A/B route with its abContext serves a user in the rule, 404 to an anonymous one', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const app = (
      await Test.createTestingModule({
        imports: [
          VaneModule.forRoot({ baseUrl: server.baseUrl('shop'), apiKey: demoKey, abContext: abContextFromRequest }),
        ],
        controllers: [PricingController],
      }).compile()
    ).createNestApplication({ logger: false });
    try {
      await app.init();
      const http = app.getHttpServer();
      await request(http)
        .get('/pricing')
        .set({ 'x-user-id': 'u-1', 'x-country': 'DE' })
        .expect(200, { pricing: 'new', discount: 0.15 });
      await request(http).get('/pricing').expect(404);
      await request(http).get('/pricing/variant').set('x-user-id', 'u-1').set('x-country', 'FR').expect(200, {
        variant: 'new',
      });
      await request(http).get('/pricing/variant').expect(200, { variant: 'classic' });
      expect(warn.mock.calls.map((c) => String(c[0])).filter((line) => line.includes('abContext'))).toEqual([]);
    } finally {
      await app.close();
      warn.mockRestore();
    }
  });

  it(
    'examples/nestjs: the module takes its options from ConfigService, and follows a flag flip',
    async () => {
      const saved = { ...process.env };
      process.env['VANE_BASE_URL'] = server.baseUrl('shop');
      process.env['VANE_API_KEY'] = demoKey;
      const app = (await Test.createTestingModule({ imports: [AppModule] }).compile()).createNestApplication({
        logger: false,
      });
      try {
        await app.init();
        await request(app.getHttpServer()).get('/checkout').expect(200, { checkout: 'new' });
        await request(app.getHttpServer()).get('/payments').expect(200, { stripeConfigured: true });
        server.admin.setFlag('shop', 'new-checkout', { is_enabled: false });
        // The flip is applied once the client's revision has reached the server's.
        const client = app.get(VaneClient);
        await new Promise<void>((resolve) => {
          if (!client.flag('new-checkout')) return resolve();
          const off = client.onChange(() => {
            off();
            resolve();
          });
        });
        await request(app.getHttpServer()).get('/checkout').expect(404);
      } finally {
        await app.close();
        process.env = saved;
      }
    },
    PROCESS_TEST_MS,
  );
});
