import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { startVaneServer, type VaneServer } from '@vane/server';
import { adapterSeed } from '@vane/test-harness';
import type ts from 'typescript';
import { compileApp, fixtureText, markersOf, withoutMarkers, type ModuleSystem } from './support/compile-fixture.js';
import { runVane } from './support/run-vane.js';

// The declaration file `vane types` writes from a running local server, compiled with each adapter's
// fixture app (tsc's API on the built @vane/* declarations, as an app that installed them): every
// `@ts-expect-error` marker must be used (an unused one is an error too), each typo's error must name its
// key, and without the file each typo compiles, as it did before.
// A scan or a compile builds a TypeScript program: seconds each, many more on a loaded machine.
jest.setTimeout(180_000);

const ROOT = resolve(__dirname, '../../..');
const FIXTURES = join(__dirname, 'fixtures');

/** Adapter, module system, the fixture, and where its app is compiled from (where its framework resolves). */
const APPS: readonly (readonly [string, ModuleSystem, string, string])[] = [
  ['Express', 'commonjs', join(FIXTURES, 'express/app.ts'), join(FIXTURES, 'express')],
  ['Fastify', 'commonjs', join(FIXTURES, 'fastify/app.ts'), join(FIXTURES, 'fastify')],
  ['NestJS 11 (CommonJS)', 'commonjs', join(FIXTURES, 'nest11/app.controller.ts'), join(FIXTURES, 'nest11')],
  // Inside the Nest 12 fixture package, so that `@nestjs/common` is Nest 12 (ESM only).
  [
    'NestJS 12 (ESM)',
    'esm',
    join(FIXTURES, 'nest12/app.controller.ts'),
    join(ROOT, 'test/fixtures/nest12-esm/vane-types'),
  ],
];

let server: VaneServer;
let scratch: string;
let declaration: string;
let program: ts.Program | undefined;

beforeAll(async () => {
  server = await startVaneServer({ seed: adapterSeed(), port: 0 });
  scratch = mkdtempSync(join(tmpdir(), 'vane-types-'));
  const out = join(scratch, 'vane-keys.d.ts');
  const run = await runVane(['types', '--base-url', server.baseUrl('shop'), '--out', out], scratch, {
    VANE_API_KEY: server.secretKey('shop'),
  });
  expect(run).toMatchObject({ code: 0, stderr: [] });
  declaration = readFileSync(out, 'utf8');
});

afterAll(async () => {
  await server?.close();
  rmSync(scratch, { recursive: true, force: true });
});

it('writes names and types, never a value', () => {
  expect(declaration).toContain('readonly "db.pool.max": DeclaredConfig<number>;');
  expect(declaration).toContain('readonly "cors.origins": DeclaredConfig<readonly string[]>;');
  expect(declaration).toContain('readonly "banner.text": DeclaredConfig<null>;');
  expect(declaration).toContain('readonly "stripe.api_key": "text";');
  expect(declaration).toContain('readonly "tls.client_pem": "file";');
  for (const value of ['https://a.example', 'rk_test_express_123', 'pem-express-v1', 'pem-express-v2']) {
    expect(declaration).not.toContain(value);
  }
});

describe.each(APPS)('a %s app', (_name, system, fixture, dir) => {
  const text = fixtureText(fixture);
  const app = join(dir, basename(fixture));
  const keys = join(dir, 'vane-keys.d.ts');
  const markers = markersOf(text);

  const compile = (files: Record<string, string>) => {
    const result = compileApp(system, files, program);
    program = result.program;
    return result.diagnostics;
  };

  it('has typo markers to prove', () => {
    expect(markers.filter((m) => m.kind === 'typo').length).toBeGreaterThanOrEqual(4);
  });

  it('compiles with the generated file, every marked line an error', () => {
    expect(compile({ [app]: text, [keys]: declaration })).toEqual([]);
  });

  it("fails each marked line, a typo's error naming its key", () => {
    const diagnostics = compile({ [app]: withoutMarkers(text), [keys]: declaration });
    const marked = new Set(markers.map((m) => m.line + 1));
    expect(diagnostics.filter((d) => !marked.has(d.line))).toEqual([]);
    for (const marker of markers) {
      const here = diagnostics.filter((d) => d.line === marker.line + 1);
      expect(here).not.toEqual([]);
      if (marker.key !== undefined) {
        expect(here.map((d) => d.message).join('\n')).toContain(`"${marker.key}"`);
      }
    }
  });

  it('compiles each typo without the generated file, as before', () => {
    const diagnostics = compile({ [app]: text });
    for (const marker of markers.filter((m) => m.kind === 'typo')) {
      // The marker has nothing to expect any more (TS2578), and the line under it compiles.
      expect(diagnostics.filter((d) => d.line === marker.line).map((d) => d.code)).toEqual([2578]);
      expect(diagnostics.filter((d) => d.line === marker.line + 1)).toEqual([]);
    }
  });
});
