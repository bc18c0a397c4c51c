import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { startVaneServer, type VaneServer, type VaneServerSeed } from '@vane/server';
import { PROCESS_TEST_MS, PROCESS_WAIT_MS } from '@vane/test-harness';

// NestJS 11 (CommonJS) and NestJS 12 (ESM only) apps load the BUILT packages
// (`npm test` builds first) as an app that installed them would: each fixture
// gets its own node_modules with a copy of @vane/client and @vane/nestjs
// (package.json + dist), so their `@nestjs/*` imports resolve to that app's
// Nest: Nest 11 from the root, Nest 12 from test/fixtures/nest12-esm/node_modules
// (installed by the root devDependency file:test/fixtures/nest12-esm). Nothing
// is installed here, nothing leaves loopback.
const ROOT = resolve(__dirname, '..');

/** These tests load the built packages: `npm test` builds first; a bare `npx jest` needs `npm run build`. */
function assertBuilt(): void {
  for (const lib of ['client', 'nestjs']) {
    for (const dist of ['dist/cjs/index.js', 'dist/esm/index.js']) {
      if (!existsSync(join(ROOT, 'libs', lib, dist)))
        throw new Error(`libs/${lib}/${dist} is missing: run "npm run build" first (npm test does)`);
    }
  }
}
const APP = join(ROOT, 'test/fixtures/nest-app');

const FLAVOURS = [
  {
    name: 'NestJS 11, CommonJS',
    major: '11',
    run: join(APP, 'node_modules/.run-nest11'),
    ext: 'cjs',
    module: ts.ModuleKind.CommonJS,
    dist: 'dist/cjs',
  },
  {
    name: 'NestJS 12, ESM only',
    major: '12',
    run: join(ROOT, 'test/fixtures/nest12-esm/node_modules/.run-nest12'),
    ext: 'mjs',
    module: ts.ModuleKind.ES2022,
    dist: 'dist/esm',
  },
] as const;

type Flavour = (typeof FLAVOURS)[number];

const SEED: VaneServerSeed = {
  tenant: { overdue_days: 0, ab_addon: true, quarantined_until: null },
  services: {
    shop: {
      kind: 'backend',
      keys: ['svs_shop_fixture_secret'],
      configs: { 'db.host': 'db.fixture' },
      flags: {
        'new-checkout': { is_enabled: true },
        'new-pricing': {
          is_enabled: true,
          ab: {
            percentage: 0,
            salt: 'np',
            cohorts: [{ conditions: [{ attribute: 'country', op: 'eq', values: ['DE'] }], percentage: 100 }],
          },
        },
        'dark-mode': { is_enabled: true },
      },
      secrets: {
        'stripe.api_key': { type: 'text', value: 'rk_fixture_123' },
        'tls.client_pem': { type: 'file', value: 'pem' },
      },
    },
  },
};

/** Lays out the fixture app: the transpiled app module, its entry point, and copies of our built packages. */
function layOut(flavour: Flavour): void {
  assertBuilt();
  rmSync(flavour.run, { recursive: true, force: true });
  mkdirSync(flavour.run, { recursive: true });
  const source = readFileSync(join(APP, 'app.module.ts'), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    fileName: 'app.module.ts',
    compilerOptions: {
      module: flavour.module,
      target: ts.ScriptTarget.ES2022,
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
      esModuleInterop: true,
    },
  });
  writeFileSync(join(flavour.run, `app.module.${flavour.ext}`), outputText);
  cpSync(join(APP, `main.${flavour.ext}`), join(flavour.run, `main.${flavour.ext}`));
  for (const lib of ['client', 'nestjs']) {
    const target = join(flavour.run, 'node_modules/@vane', lib);
    mkdirSync(target, { recursive: true });
    cpSync(join(ROOT, 'libs', lib, 'package.json'), join(target, 'package.json'));
    cpSync(join(ROOT, 'libs', lib, 'dist'), join(target, 'dist'), { recursive: true });
  }
}

interface Ready {
  port: number;
  nestCore: string;
  nestCoreFile: string;
  vaneNestjsFile: string;
}

interface Started {
  child: ChildProcess;
  ready: Promise<Ready>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

function start(flavour: Flavour, env: Record<string, string>): Started {
  const child = spawn(process.execPath, [`main.${flavour.ext}`], {
    cwd: flavour.run,
    env: { PATH: process.env['PATH'] ?? '', TMPDIR: tmpdir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolveExit) =>
    child.on('exit', (code, signal) => resolveExit({ code, signal, stderr })),
  );
  const ready = new Promise<Ready>((resolveReady, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no ready line within ${PROCESS_WAIT_MS} ms; stderr: ${stderr}`)),
      PROCESS_WAIT_MS,
    );
    child.stdout!.on('data', (c: Buffer) => {
      stdout += c.toString();
      const line = stdout.split('\n').find((l) => l.startsWith('{"ready":true'));
      if (line) {
        clearTimeout(timer);
        resolveReady(JSON.parse(line) as Ready);
      }
    });
    void exit.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ready; stderr: ${stderr}`));
    });
  });
  ready.catch(() => undefined);
  return { child, ready, exit };
}

function get(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolveGet, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () =>
        resolveGet({ status: res.statusCode ?? 0, body: text.startsWith('{') ? (JSON.parse(text) as unknown) : text }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe.each(FLAVOURS)('fixture app on $name', (flavour) => {
  let server: VaneServer;

  beforeAll(async () => {
    layOut(flavour);
    server = await startVaneServer({ seed: SEED, port: 0 });
  });
  afterAll(async () => {
    await server.close();
  });

  it(
    'starts, serves configs, flags (live), A/B, secrets and file secrets, and cleans up on SIGTERM',
    async () => {
      const app = start(flavour, { VANE_BASE_URL: server.baseUrl('shop'), VANE_API_KEY: 'svs_shop_fixture_secret' });
      try {
        const ready = await app.ready;
        expect(ready.nestCore.split('.')[0]).toBe(flavour.major);
        expect(ready.nestCoreFile).toContain(
          flavour.major === '12' ? 'nest12-esm/node_modules/@nestjs/core' : `${ROOT}/node_modules/@nestjs/core`,
        );
        expect(ready.vaneNestjsFile).toBe(join(flavour.run, 'node_modules/@vane/nestjs', flavour.dist, 'index.js'));

        expect(await get(ready.port, '/config')).toEqual({ status: 200, body: { host: 'db.fixture' } });
        expect(await get(ready.port, '/checkout')).toEqual({ status: 200, body: { checkout: 'new', keyLength: 14 } });
        expect(await get(ready.port, '/pricing', { 'x-user': 'u-1', 'x-country': 'DE' })).toEqual({
          status: 200,
          body: { user: 'u-1', dark: true },
        });
        expect((await get(ready.port, '/pricing', { 'x-user': 'u-1', 'x-country': 'US' })).status).toBe(404);

        server.admin.setFlag('shop', 'new-checkout', { is_enabled: false });
        expect(await get(ready.port, '/wait/flag/new-checkout/false')).toEqual({
          status: 200,
          body: { active: false },
        });
        expect((await get(ready.port, '/checkout')).status).toBe(404);
        server.admin.setFlag('shop', 'new-checkout', { is_enabled: true });

        const pem = (await get(ready.port, '/pem')).body as { path: string };
        expect(existsSync(pem.path)).toBe(true);
        app.child.kill('SIGTERM');
        const exit = await app.exit;
        expect(exit.stderr).toBe('');
        expect(existsSync(pem.path)).toBe(false);
      } finally {
        app.child.kill('SIGKILL');
      }
    },
    PROCESS_TEST_MS,
  );

  it(
    'fails to start with the typed error and what to fix when the key is wrong',
    async () => {
      const app = start(flavour, { VANE_BASE_URL: server.baseUrl('shop'), VANE_API_KEY: 'svs_wrong_key_for_shop' });
      const exit = await app.exit;
      expect(exit.code).toBe(1);
      expect(exit.stderr).toMatch(/initial sync failed, the app cannot start \(VANE_UNAUTHORIZED\)/);
      expect(exit.stderr).toMatch(/What to do: wrong key/);
      expect(exit.stderr).toMatch(/UnauthorizedError/);
      expect(exit.stderr).not.toContain('svs_wrong_key_for_shop');
    },
    PROCESS_TEST_MS,
  );
});
