import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startVaneServer, type VaneServer } from '@vane/server';
import { adapterSeed } from '@vane/test-harness';
import type { RefsReport } from '../src/refs/refs-report.js';
import { runVane } from './support/run-vane.js';

// `vane refs` on the fixture apps: every Vane read found with its line (TypeScript's compiler API and
// checker, on the built @vane/* declarations), keys built at run time reported as such. A scan builds a
// program with the frameworks' types, seconds each on a loaded machine: hence a slow suite.
// A scan or a compile builds a TypeScript program: seconds each, many more on a loaded machine.
jest.setTimeout(120_000);

const FIXTURES = join(__dirname, 'fixtures');

/** `kind key file:line via` of each use, in report order. */
const lines = (report: RefsReport): string[] =>
  report.uses.map((u) => `${u.kind} ${u.key ?? `(${u.expression})`} ${u.file}:${u.line} ${u.via}`);

async function refs(dir: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const run = await runVane(['refs', '--dir', dir, '--json', ...extra], __dirname, env);
  return { ...run, report: run.code === 2 ? undefined : (JSON.parse(run.stdout.join('\n')) as RefsReport) };
}

const NEST = [
  'flag new-checkout app.controller.ts:12 @FeatureFlag',
  'flag beta app.controller.ts:14 @Flag',
  'secret stripe.api_key app.controller.ts:15 @Secret',
  'secret tls.client_pem app.controller.ts:16 @Secret',
  'config db.host app.controller.ts:18 config',
  'config db.pool.max app.controller.ts:19 config$',
  'flag nope app.controller.ts:24 @FeatureFlag',
  'flag nope app.controller.ts:32 @Flag',
  'secret nope app.controller.ts:34 @Secret',
  'secret stripe.api_key app.controller.ts:36 @Secret',
  'secret tls.client_pem app.controller.ts:38 @Secret',
  'config db.prot app.controller.ts:41 config',
  'flag nope app.controller.ts:43 flag$',
  'config db.host app.controller.ts:45 config',
];

const EXPECTED: Record<string, string[]> = {
  express: [
    'flag new-checkout app.ts:14 requireFlag',
    'config db.pool.max app.ts:15 config',
    'config cors.origins app.ts:16 config',
    'secret stripe.api_key app.ts:17 secret',
    'secret tls.client_pem app.ts:18 secretFile',
    'flag beta app.ts:19 flag',
    'flag nope app.ts:23 requireFlag',
    'config db.prot app.ts:27 config',
    'flag nope app.ts:29 flag',
    'secret stripe.api_key app.ts:31 secretFile',
    'config db.pool.max app.ts:33 config',
    'config db.prot app.ts:41 config',
    'secret tls.client_pem app.ts:43 secret',
    'config db.pool.max app.ts:44 config',
    'flag new-pricing app.ts:49 getBooleanValue',
    'flag (`feature.${name}`) dynamic.ts:5 flag',
    "config (keys['pool'] ?? 'db.pool.max') dynamic.ts:9 config",
  ],
  fastify: [
    'flag new-checkout app.ts:8 config.vane.flags',
    'config pricing.discount app.ts:9 config',
    'flag dark-mode app.ts:10 flag',
    'flag new-checkout app.ts:12 requireFlag',
    'flag big-banner app.ts:12 requireFlag',
    'secret tls.client_pem app.ts:13 secretFile',
    'flag nope app.ts:17 requireFlag',
    'flag nope app.ts:19 config.vane.flags',
    'config db.prot app.ts:22 config',
    'flag nope app.ts:24 flag',
    'secret stripe.api_key app.ts:26 secretFile',
    'config maintenance.enabled app.ts:28 config',
  ],
  nest11: [
    ...NEST,
    'flag new-pricing feature.controller.ts:13 @RequireFlagsEnabled',
    'flag dark-mode feature.controller.ts:13 @RequireFlagsEnabled',
    'flag big-banner feature.controller.ts:15 @BooleanFeatureFlag',
    'config pricing.discount feature.controller.ts:16 @NumberFeatureFlag',
  ],
  nest12: NEST,
};

describe('vane refs finds every read', () => {
  it.each(Object.keys(EXPECTED))('in the %s fixture', async (name) => {
    const { code, report } = await refs(join(FIXTURES, name));
    expect(code).toBe(0);
    expect(lines(report!)).toEqual(EXPECTED[name]);
    expect(report!.dynamic.length).toBe(name === 'express' ? 2 : 0);
  });

  it('sees a read added to the code, and no more one removed', async () => {
    const scratch = mkdtempSync(join(__dirname, '.scratch-'));
    try {
      cpSync(join(FIXTURES, 'express'), scratch, { recursive: true });
      const app = join(scratch, 'app.ts');
      const text = readFileSync(app, 'utf8');
      writeFileSync(
        app,
        text.replace(", beta: req.vane.flag('beta')", '') +
          "\nexport const added = (client: VaneClient): boolean => client.flag('holiday-banner');\n",
      );
      const found = lines((await refs(scratch)).report!);
      expect(found).toContain(`flag holiday-banner app.ts:${text.split('\n').length + 1} flag`);
      expect(found.filter((line) => line.startsWith('flag beta '))).toEqual([]);
      expect(found.length).toBe(EXPECTED['express']!.length);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('prints a table for people', async () => {
    const run = await runVane(['refs', '--dir', join(FIXTURES, 'fastify')], __dirname);
    expect(run.code).toBe(0);
    expect(run.stdout[0]).toMatch(/^KIND\s+KEY\s+WHERE\s+VIA$/);
    expect(run.stdout).toContainEqual(expect.stringMatching(/^flag\s+big-banner\s+app\.ts:12\s+requireFlag$/));
    expect(run.stdout).toContain('12 uses, 0 with keys built at run time');
  });
});

describe('vane refs against the local server, for people', () => {
  let server: VaneServer;
  beforeAll(async () => {
    server = await startVaneServer({ seed: adapterSeed(), port: 0 });
  });
  afterAll(() => server.close());

  it('says it in the table too', async () => {
    const run = await runVane(
      ['refs', '--dir', join(FIXTURES, 'fastify'), '--base-url', server.baseUrl('shop')],
      __dirname,
      { VANE_API_KEY: server.secretKey('shop') },
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('error: 2 keys used but not defined on the service:');
    expect(run.stdout).toContain('  flag nope: app.ts:17, app.ts:19, app.ts:24');
    expect(run.stdout).toContain('  config db.prot: app.ts:22');
    expect(run.stdout).toContain('2 flags defined but read nowhere:');
  });
});
