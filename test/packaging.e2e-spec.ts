import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';

// Runs on the built packages (`npm test` builds first), through Node's own resolver,
// as an app that installed them would load them.
const ROOT = resolve(__dirname, '..');
const LIBS = ['client', 'local-server', 'nestjs', 'express'] as const;

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

  it('loads through require() as CommonJS and through import() as ESM, with the same exports', () => {
    const cjs = node(['-e', `console.log(JSON.stringify(Object.keys(require('@vane/${lib}')).sort()))`]);
    const esm = node([
      '--input-type=module',
      '-e',
      `const m = await import('@vane/${lib}'); console.log(JSON.stringify(Object.keys(m).filter((k) => k !== 'default').sort()))`,
    ]);
    expect(JSON.parse(esm)).toEqual(JSON.parse(cjs));
  });

  it('declares per-condition types that exist', () => {
    const root = manifest.exports['.']!;
    for (const file of [root.import.types, root.import.default, root.require.types, root.require.default]) {
      expect(() => readFileSync(join(ROOT, 'libs', lib, file))).not.toThrow();
    }
  });
});

describe('dependency manifest', () => {
  it.each(LIBS)('@vane/%s declares every package its sources import', (lib) => {
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
        const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
        if (!declared.has(name)) missing.add(`${name} (in ${file})`);
      }
    }
    expect([...missing]).toEqual([]);
  });
});
