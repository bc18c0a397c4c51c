import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { CLIENT_VERSION } from '../src/http/version.js';

const root = join(__dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
  files: string[];
  sideEffects: boolean;
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

  it('every package the library imports is a declared dependency', () => {
    const imported = new Set<string>();
    for (const file of files) {
      for (const match of readFileSync(file, 'utf8').matchAll(/from '([^'.][^']*)'/g)) {
        const spec = match[1]!;
        if (spec.startsWith('node:') || builtinModules.includes(spec)) continue;
        imported.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
      }
    }
    expect([...imported].sort()).toEqual(Object.keys(manifest.dependencies).sort());
  });

  it('relative imports carry a .js suffix (ESM build), and nothing uses import.meta, __dirname or top-level await', () => {
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/from '(\.[^']*)'/g)) expect(`${file}: ${match[1]}`).toMatch(/\.js$/);
      expect(text).not.toMatch(/import\.meta|__dirname|__filename|^await /m);
    }
  });

  it('no framework imports', () => {
    for (const file of files) expect(readFileSync(file, 'utf8')).not.toMatch(/from '(@nestjs|express|rxjs)/);
  });

  it('the User-Agent version follows package.json; the package ships dist only and has no side effects', () => {
    expect(CLIENT_VERSION).toBe(manifest.version);
    expect(manifest.files).toEqual(['dist']);
    expect(manifest.sideEffects).toBe(false);
  });
});
