import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { PROCESS_TEST_MS } from '@vane/test-harness';

// Runs on the built packages (`npm test` builds first), through Node's own resolver,
// as an app that installed them would load them.
const ROOT = resolve(__dirname, '..');
const LIBS = [
  'common',
  'client-core',
  'client',
  'browser',
  'react',
  'server',
  'nestjs',
  'express',
  'fastify',
  'openfeature',
  'cli',
] as const;

function node(args: string[]): string {
  return execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
}

describe.each(LIBS)('@vane/%s package', (lib) => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'libs', lib, 'package.json'), 'utf8')) as {
    exports: Record<
      string,
      { import: { types: string; default: string }; require: { types: string; default: string } }
    >;
  };

  it(
    'loads through require() as CommonJS and through import() as ESM, with the same exports',
    () => {
      // A default export (the Fastify plugin) is `default` in CommonJS too: compared apart, below.
      const cjs = node([
        '-e',
        `console.log(JSON.stringify(Object.keys(require('@vane/${lib}')).filter((k) => k !== 'default').sort()))`,
      ]);
      const esm = node([
        '--input-type=module',
        '-e',
        `const m = await import('@vane/${lib}'); console.log(JSON.stringify(Object.keys(m).filter((k) => k !== 'default').sort()))`,
      ]);
      expect(JSON.parse(esm)).toEqual(JSON.parse(cjs));
    },
    PROCESS_TEST_MS,
  );

  it('declares per-condition types that exist, for every entry', () => {
    for (const [entry, conditions] of Object.entries(manifest.exports)) {
      if (typeof conditions === 'string') continue; // ./package.json
      const { import: esm, require: cjs } = conditions;
      for (const file of [esm.types, esm.default, cjs.types, cjs.default]) {
        expect(() => readFileSync(join(ROOT, 'libs', lib, file))).not.toThrow();
      }
      expect(entry).toMatch(/^\.(\/[a-z-]+)?$/);
    }
  });
});

describe('@vane/fastify', () => {
  it(
    'registers in a Fastify app as a plugin, through require() and import(), from the default and the named export',
    () => {
      const use = (load: string) =>
        `{ const app = Fastify(); await app.register(${load}, { client: { flag: () => true, close: async () => {}, flagState: () => ({ defined: true, active: true }), telemetry: { recordFlag: () => {} } }, consistentReads: false });` +
        ` app.get('/x', { config: { vane: { flags: 'on' } } }, async (r) => ({ on: r.vane.flag('on') }));` +
        ` const res = await app.inject('/x'); await app.close(); console.log(res.body); }`;
      const cjs = node([
        '-e',
        `const Fastify = require('fastify'); const m = require('@vane/fastify'); (async () => { ${use('m')} ${use('m.vane')} })();`,
      ]);
      const esm = node([
        '--input-type=module',
        '-e',
        `import Fastify from 'fastify'; import vane, { vane as named } from '@vane/fastify'; ${use('vane')} ${use('named')}`,
      ]);
      expect(cjs.trim().split('\n')).toEqual(['{"on":true}', '{"on":true}']);
      expect(esm).toBe(cjs);
    },
    PROCESS_TEST_MS,
  );
});

describe('dependency manifest', () => {
  it.each(LIBS)(
    '@vane/%s declares every package its sources import',
    (lib) => {
      const manifest = JSON.parse(readFileSync(join(ROOT, 'libs', lib, 'package.json'), 'utf8')) as {
        dependencies?: Record<string, string>;
        peerDependencies?: Record<string, string>;
        optionalDependencies?: Record<string, string>;
      };
      const declared = new Set([
        ...Object.keys(manifest.dependencies ?? {}),
        ...Object.keys(manifest.peerDependencies ?? {}),
        ...Object.keys(manifest.optionalDependencies ?? {}),
      ]);
      const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', `libs/${lib}/src`], {
        cwd: ROOT,
        encoding: 'utf8',
      })
        .split('\n')
        .filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'));
      const missing = new Set<string>();
      for (const file of files) {
        const source = readFileSync(join(ROOT, file), 'utf8');
        // TypeScript's own scanner finds every import, export-from, import() and require().
        for (const { fileName: specifier } of ts.preProcessFile(source, true, true).importedFiles) {
          if (specifier.startsWith('.') || specifier.startsWith('node:')) continue;
          const name = specifier.startsWith('@')
            ? specifier.split('/').slice(0, 2).join('/')
            : specifier.split('/')[0]!;
          if (!declared.has(name)) missing.add(`${name} (in ${file})`);
        }
      }
      expect([...missing]).toEqual([]);
    },
    PROCESS_TEST_MS,
  );
});

describe('@vane/nestjs/testing', () => {
  it(
    'is an entry of its own, the same through require() and import(), and off the main entry',
    () => {
      const cjs = node(['-e', `console.log(JSON.stringify(Object.keys(require('@vane/nestjs/testing')).sort()))`]);
      const esm = node([
        '--input-type=module',
        '-e',
        `const m = await import('@vane/nestjs/testing'); console.log(JSON.stringify(Object.keys(m).filter((k) => k !== 'default').sort()))`,
      ]);
      expect(JSON.parse(cjs)).toEqual(['VaneTestingBackend', 'VaneTestingModule']);
      expect(JSON.parse(esm)).toEqual(JSON.parse(cjs));
      const main = JSON.parse(
        node(['-e', `console.log(JSON.stringify(Object.keys(require('@vane/nestjs'))))`]),
      ) as string[];
      expect(main).not.toContain('VaneTestingModule');
      expect(main).not.toContain('VaneTestingBackend');
    },
    PROCESS_TEST_MS,
  );

  it('resolves for TypeScript with the old node10 resolution too (typesVersions), as Nest 11 projects may use', () => {
    const resolved = ts.resolveModuleName(
      '@vane/nestjs/testing',
      join(ROOT, 'test', 'app.ts'),
      { moduleResolution: ts.ModuleResolutionKind.Node10 },
      ts.sys,
    ).resolvedModule;
    expect(resolved?.resolvedFileName).toBe(join(ROOT, 'libs/nestjs/dist/cjs/testing/index.d.ts'));
  });
});

describe.each([
  ['adapter', 'adapter/index.d.ts', 'AdapterRequestReader'],
  ['errors', 'errors.d.ts', 'SecretNotFoundError'],
])('@vane/client/%s', (entry, types, member) => {
  it(
    'is an entry of its own, the same through require() and import(), whose names stay off the main entry',
    () => {
      const cjs = node(['-e', `console.log(JSON.stringify(Object.keys(require('@vane/client/${entry}')).sort()))`]);
      const esm = node([
        '--input-type=module',
        '-e',
        `const m = await import('@vane/client/${entry}'); console.log(JSON.stringify(Object.keys(m).sort()))`,
      ]);
      expect(JSON.parse(cjs)).toContain(member);
      expect(JSON.parse(esm)).toEqual(JSON.parse(cjs));
      const main = JSON.parse(node(['-e', `console.log(JSON.stringify(Object.keys(require('@vane/client'))))`]));
      expect(main).not.toContain(member);
    },
    PROCESS_TEST_MS,
  );

  it('resolves for TypeScript with the old node10 resolution too (typesVersions)', () => {
    const resolved = ts.resolveModuleName(
      `@vane/client/${entry}`,
      join(ROOT, 'test', 'app.ts'),
      { moduleResolution: ts.ModuleResolutionKind.Node10 },
      ts.sys,
    ).resolvedModule;
    expect(resolved?.resolvedFileName).toBe(join(ROOT, 'libs/client/dist/cjs', types));
  });
});

describe('@vane/cli/api', () => {
  it(
    'is an entry of its own, the same through require() and import(), and the main entry exports nothing',
    () => {
      const cjs = node(['-e', `console.log(JSON.stringify(Object.keys(require('@vane/cli/api')).sort()))`]);
      const esm = node([
        '--input-type=module',
        '-e',
        `const m = await import('@vane/cli/api'); console.log(JSON.stringify(Object.keys(m).sort()))`,
      ]);
      expect(JSON.parse(cjs)).toContain('runCli');
      expect(JSON.parse(esm)).toEqual(JSON.parse(cjs));
      const main = JSON.parse(node(['-e', `console.log(JSON.stringify(Object.keys(require('@vane/cli'))))`]));
      expect(main).toEqual([]);
    },
    PROCESS_TEST_MS,
  );

  it('resolves for TypeScript with the old node10 resolution too (typesVersions)', () => {
    const resolved = ts.resolveModuleName(
      '@vane/cli/api',
      join(ROOT, 'test', 'app.ts'),
      { moduleResolution: ts.ModuleResolutionKind.Node10 },
      ts.sys,
    ).resolvedModule;
    expect(resolved?.resolvedFileName).toBe(join(ROOT, 'libs/cli/dist/cjs/api/index.d.ts'));
  });
});

describe('stripInternal', () => {
  it('ships no @internal member in the declarations (VaneClient has no callView or pinStats)', () => {
    const client = readFileSync(join(ROOT, 'libs/client/dist/cjs/vane-client.d.ts'), 'utf8');
    expect(client).toContain('export declare class VaneClient');
    expect(client).not.toMatch(/callView|pinStats/);
  });
});

describe('@vane/server/testing', () => {
  const EXPORTS = [
    'AdminRequestError',
    'AnswerCheckUnavailableError',
    'DEFAULT_WAIT_MS',
    'OpenApiMismatchError',
    'TEST_KEYS',
    'TEST_SECRET_VALUES',
    'WaitTimeoutError',
    'adminClient',
    'adminPut',
    'adminRequest',
    'testSeed',
    'until',
    'waitForChange',
    'waitForEvent',
    'waitForRevision',
    'waitForStatus',
    'waitForUpdate',
    'withTimeout',
  ];

  it(
    'is an entry of its own, the same through require() and import(), off the main entry, and imports no client',
    () => {
      const cjs = node(['-e', `console.log(JSON.stringify(Object.keys(require('@vane/server/testing')).sort()))`]);
      const esm = node([
        '--input-type=module',
        '-e',
        `const m = await import('@vane/server/testing'); console.log(JSON.stringify(Object.keys(m).filter((k) => k !== 'default').sort()))`,
      ]);
      expect(JSON.parse(cjs)).toEqual(EXPORTS);
      expect(JSON.parse(esm)).toEqual(JSON.parse(cjs));
      const main = JSON.parse(
        node(['-e', `console.log(JSON.stringify(Object.keys(require('@vane/server'))))`]),
      ) as string[];
      expect(main.filter((name) => EXPORTS.includes(name))).toEqual([]);
      // Loading it pulls in neither the client nor a framework, nor Ajv (loaded at the first answer check only).
      const loaded = node([
        '-e',
        `require('@vane/server/testing'); console.log(JSON.stringify(Object.keys(require.cache).filter((f) => /@vane[\\/](client|nestjs|express|fastify)|node_modules[\\/](express|@nestjs|fastify|ajv|ajv-formats)[\\/]/.test(f))))`,
      ]);
      expect(JSON.parse(loaded)).toEqual([]);
    },
    PROCESS_TEST_MS,
  );

  it("types without Ajv's: the answer check's optional peers stay out of what a project type-checks", () => {
    const entry = join(ROOT, 'libs/server/dist/cjs/testing/index.d.ts');
    const program = ts.createProgram([entry], {
      noEmit: true,
      types: ['node'],
      moduleResolution: ts.ModuleResolutionKind.Node10,
    });
    const files = program.getSourceFiles().map((file) => file.fileName);
    expect(files).toContain(join(ROOT, 'libs/server/dist/cjs/testing/admin-operation-types.d.ts'));
    expect(files.filter((file) => /[\\/]ajv(-formats)?[\\/]/.test(file))).toEqual([]);
  });

  it('resolves for TypeScript with the old node10 resolution too (typesVersions)', () => {
    const resolved = ts.resolveModuleName(
      '@vane/server/testing',
      join(ROOT, 'test', 'app.ts'),
      { moduleResolution: ts.ModuleResolutionKind.Node10 },
      ts.sys,
    ).resolvedModule;
    expect(resolved?.resolvedFileName).toBe(join(ROOT, 'libs/server/dist/cjs/testing/index.d.ts'));
  });
});

describe('the vane-local-server command', () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'libs/server/package.json'), 'utf8')) as {
    bin: Record<string, string>;
    files: string[];
  };

  it(
    'is a committed launcher (npm links it at install time, before dist/ exists), executable in git, and shipped',
    () => {
      const launcher = manifest.bin['vane-local-server']!;
      expect(launcher).toMatch(/^\.\/bin\//);
      const [mode] = execFileSync('git', ['ls-files', '--stage', join('libs/server', launcher)], {
        cwd: ROOT,
        encoding: 'utf8',
      }).split(' ');
      expect(mode).toBe('100755');
      expect(manifest.files).toContain('bin');
    },
    PROCESS_TEST_MS,
  );

  it(
    'before a build, the launcher says to build (exit 1) instead of failing with a stack trace',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'vane-launcher-'));
      try {
        mkdirSync(join(dir, 'bin'));
        copyFileSync(join(ROOT, 'libs/server', manifest.bin['vane-local-server']!), join(dir, 'bin/launcher.cjs'));
        const result = spawnSync(process.execPath, [join(dir, 'bin/launcher.cjs'), '--help'], { encoding: 'utf8' });
        expect(result.status).toBe(1);
        expect(result.stderr).toMatch(/dist[\\/]cjs[\\/]cli\.js is missing: build the package first \(npm run build/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    PROCESS_TEST_MS,
  );

  it('the built cli.js is executable in both builds', () => {
    for (const build of ['cjs', 'esm']) {
      expect(statSync(join(ROOT, 'libs/server/dist', build, 'cli.js')).mode & 0o111).toBe(0o111);
    }
  });

  it(
    'npx vane-local-server --help runs our own code from the repository root (never a registry package)',
    () => {
      // --no: refuse to install anything, so a missing link fails here instead of fetching a stranger's package.
      const out = execFileSync('npx', ['--no', '--', 'vane-local-server', '--help'], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 30_000,
        env: { ...process.env, npm_config_yes: 'false', npm_config_update_notifier: 'false' },
      });
      expect(out).toMatch(/^Usage: vane-local-server /);
    },
    PROCESS_TEST_MS,
  );
});

describe('@vane/client and the AWS SDK', () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'libs/client/package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    optionalDependencies?: Record<string, string>;
    peerDependencies: Record<string, string>;
    peerDependenciesMeta: Record<string, { optional?: boolean }>;
  };
  const aws = ['@aws-crypto/sha256-js', '@aws-sdk/credential-providers', '@smithy/signature-v4'];

  it('declares the AWS packages as optional peers only: an install of @vane/client does not download them', () => {
    expect(manifest.optionalDependencies).toBeUndefined();
    for (const name of aws) {
      expect(manifest.dependencies[name]).toBeUndefined();
      expect(manifest.peerDependencies[name]).toBeDefined();
      expect(manifest.peerDependenciesMeta[name]).toEqual({ optional: true });
    }
  });
});
