import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import ts from 'typescript';

const root = join(__dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  files: string[];
  sideEffects: boolean;
  engines: { node: string };
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

describe('package manifest', () => {
  const files = sources(join(root, 'src'));

  it('every package the library imports is a declared dependency or peer, and every declared one is used', () => {
    const imported = new Set<string>();
    for (const file of files) {
      // TypeScript's own scanner: imports, export-from, import() and require(), never a comment's example.
      for (const { fileName: spec } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
        if (spec.startsWith('.') || spec.startsWith('node:') || builtinModules.includes(spec)) continue;
        imported.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
      }
    }
    expect([...imported].sort()).toEqual(
      [...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)].sort(),
    );
  });

  it('Fastify is a peer of majors 4 and 5 (the app owns its one Fastify); fastify-plugin is a dependency', () => {
    expect(manifest.peerDependencies).toEqual({ fastify: expect.stringMatching(/^\^4\.\d+\.\d+ \|\| \^5\.\d+\.\d+$/) });
    expect(manifest.dependencies['fastify']).toBeUndefined();
    expect(manifest.dependencies['fastify-plugin']).toBeDefined();
  });

  it('relative imports carry a .js suffix (ESM build), and nothing uses import.meta, __dirname or top-level await', () => {
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/from '(\.[^']*)'/g)) expect(`${file}: ${match[1]}`).toMatch(/\.js$/);
      expect(text).not.toMatch(/import\.meta|__dirname|__filename|^await /m);
    }
  });

  it('no other framework imports', () => {
    for (const file of files) expect(readFileSync(file, 'utf8')).not.toMatch(/from '(@nestjs|express|rxjs)/);
  });

  it('ships dist only, has no side effects, and runs on Node 20.18+', () => {
    expect(manifest.files).toEqual(['dist']);
    expect(manifest.sideEffects).toBe(false);
    expect(manifest.engines.node).toBe('>=20.18.1');
  });
});
