import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The manifests of the packages that run in browsers: @vane/client-core,
 * @vane/browser and @vane/react. Every package their sources import is a
 * declared dependency or peer, and none imports a Node built-in.
 */
const libs = join(__dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) && !/\.spec\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

describe.each(['client-core', 'browser', 'react'])('@vane/%s manifest', (lib) => {
  const manifest = JSON.parse(readFileSync(join(libs, lib, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
    files: string[];
    sideEffects: boolean;
  };
  const files = sources(join(libs, lib, 'src'));

  it('imports only declared packages, and no Node built-in', () => {
    const imported = new Set<string>();
    for (const file of files) {
      for (const match of readFileSync(file, 'utf8').matchAll(/from '([^'.][^']*)'/g)) {
        const spec = match[1]!;
        expect(`${file}: ${spec}`).not.toMatch(/: node:/);
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
        // The package's own subpaths (named in its TSDoc examples) are no dependency.
        if (name !== `@vane/${lib}`) imported.add(name);
      }
    }
    expect([...imported].sort()).toEqual(
      [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})].sort(),
    );
  });

  it('ships dist only, with no side effects', () => {
    expect(manifest.files).toEqual(['dist']);
    expect(manifest.sideEffects).toBe(false);
  });
});
