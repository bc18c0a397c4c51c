import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';

const root = join(__dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional: boolean }>;
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
      for (const match of readFileSync(file, 'utf8').matchAll(/from '([^'.][^']*)'/g)) {
        const spec = match[1]!;
        if (spec.startsWith('node:') || builtinModules.includes(spec)) continue;
        imported.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
      }
    }
    expect([...imported].sort()).toEqual(
      [...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)].sort(),
    );
  });

  it('OpenFeature is a peer (the app owns the one OpenFeature API), of major 1: the server SDK for the main entry, the web SDK for ./web, each optional', () => {
    expect(manifest.peerDependencies).toEqual({
      '@openfeature/server-sdk': expect.stringMatching(/^\^1\./),
      '@openfeature/web-sdk': expect.stringMatching(/^\^1\./),
    });
    expect(manifest.peerDependenciesMeta).toEqual({
      '@openfeature/server-sdk': { optional: true },
      '@openfeature/web-sdk': { optional: true },
    });
    expect(manifest.dependencies['@openfeature/server-sdk']).toBeUndefined();
    expect(manifest.dependencies['@openfeature/web-sdk']).toBeUndefined();
  });

  it('the ./web entry loads nothing of the server side: no @vane/client, no server SDK (types aside)', () => {
    const reach = new Set<string>();
    const visit = (file: string): void => {
      if (reach.has(file)) return;
      reach.add(file);
      for (const match of readFileSync(file, 'utf8').matchAll(/from '(\.[^']*)\.js'/g))
        visit(join(file, '..', `${match[1]!}.ts`));
    };
    visit(join(root, 'src/web/index.ts'));
    for (const file of reach)
      expect(readFileSync(file, 'utf8')).not.toMatch(
        /^import (?!type ).*from '(@vane\/client'|@vane\/client\/|@openfeature\/server-sdk)/m,
      );
  });

  it('relative imports carry a .js suffix (ESM build), and nothing uses import.meta, __dirname or top-level await', () => {
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/from '(\.[^']*)'/g)) expect(`${file}: ${match[1]}`).toMatch(/\.js$/);
      expect(text).not.toMatch(/import\.meta|__dirname|__filename|^await /m);
    }
  });

  it('no framework imports: the provider works wherever OpenFeature does', () => {
    for (const file of files) expect(readFileSync(file, 'utf8')).not.toMatch(/from '(@nestjs|express|rxjs)/);
  });

  it('ships dist only, has no side effects, and runs on Node 20.18+', () => {
    expect(manifest.files).toEqual(['dist']);
    expect(manifest.sideEffects).toBe(false);
    expect(manifest.engines.node).toBe('>=20.18.1');
  });
});
