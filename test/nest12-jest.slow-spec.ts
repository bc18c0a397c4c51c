import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PROCESS_TEST_MS } from '@vane/test-harness';

// The jest 30 + NestJS 12 (ESM only) pitfall, and the two fixes the README
// gives, run for real: a NestJS 12 user's specs (test/fixtures/nest12-esm/jest:
// on Express, and on Fastify with @nestjs/platform-fastify 12) under three
// jest configs, in a child jest, on the built @vane packages.
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
const DIR = join(ROOT, 'test/fixtures/nest12-esm/jest');
const JEST = join(ROOT, 'node_modules/jest/bin/jest.js');

function jest(config: string, nodeOptions = ''): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [JEST, '-c', join(DIR, config), '--ci', '--colors=false'], {
    cwd: DIR,
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, NODE_OPTIONS: nodeOptions, FORCE_COLOR: '0' },
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('jest 30 with NestJS 12 (ESM only)', () => {
  beforeAll(() => {
    assertBuilt();
    for (const lib of ['client', 'nestjs']) {
      const target = join(DIR, 'node_modules/@vane', lib);
      rmSync(target, { recursive: true, force: true });
      mkdirSync(target, { recursive: true });
      cpSync(join(ROOT, 'libs', lib, 'package.json'), join(target, 'package.json'));
      cpSync(join(ROOT, 'libs', lib, 'dist'), join(target, 'dist'), { recursive: true });
    }
  });

  it(
    'fails with a NestJS 11 style config: jest has no require(esm) of its own on Node < 24.9',
    () => {
      const run = jest('jest.naive.config.cjs');
      expect(run.status).toBe(1);
      expect(run.output).toMatch(/Must use import to load ES Module: .*@nestjs\/common\/index\.js/);
    },
    PROCESS_TEST_MS,
  );

  it(
    'passes when SWC compiles NestJS 12 to CommonJS (transformIgnorePatterns)',
    () => {
      const run = jest('jest.cjs.config.cjs');
      expect(run.output).toMatch(/Tests:\s+2 passed/);
      expect(run.status).toBe(0);
    },
    PROCESS_TEST_MS,
  );

  it(
    'passes as ES modules under --experimental-vm-modules',
    () => {
      const run = jest('jest.esm.config.cjs', '--experimental-vm-modules --no-warnings');
      expect(run.output).toMatch(/Tests:\s+2 passed/);
      expect(run.status).toBe(0);
    },
    PROCESS_TEST_MS,
  );
});
