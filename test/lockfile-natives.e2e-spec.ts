import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ROOT } from './support/samples.js';

// The browser apps' tools run native code from optional packages, one per platform. npm writes into the
// lock only what the machine that ran `npm install` resolved, at times (a lock re-made from a partial
// node_modules); `npm ci` on another platform then installs no binary, and `next build` rewrites the lock.
// The lock must name every platform's package of each tool, whatever machine wrote it.

/** The tools with per-platform optional packages, each reached as the app reaches it (app → … → tool). */
const TOOLS = [
  { tool: 'next', path: ['examples/nextjs', 'next'] },
  { tool: 'rolldown', path: ['examples/vite-react', 'vite', 'rolldown'] }, // Vite 8's bundler
  { tool: 'lightningcss', path: ['examples/vite-react', 'vite', 'lightningcss'] }, // Vite 8's CSS
  { tool: 'sharp', path: ['examples/nextjs', 'next', 'sharp'] }, // Next's image optimisation
] as const;

/**
 * The manifest of the last package of `path`, each resolved from the one before it, as Node would: its
 * entry point, then up to its package.json (not every package exports that file).
 */
function manifestAlong([app, ...packages]: readonly string[]): string {
  let manifestPath = join(ROOT, app!, 'package.json');
  for (const name of packages) {
    let dir = dirname(createRequire(manifestPath).resolve(name));
    while (!existsSync(join(dir, 'package.json')) || readManifest(join(dir, 'package.json')).name !== name) {
      if (dirname(dir) === dir) throw new Error(`no package.json of ${name} above its entry point`);
      dir = dirname(dir);
    }
    manifestPath = join(dir, 'package.json');
  }
  return manifestPath;
}

function readManifest(path: string): { name?: string; optionalDependencies?: Record<string, string> } {
  return JSON.parse(readFileSync(path, 'utf8')) as { name?: string; optionalDependencies?: Record<string, string> };
}

describe('package-lock.json and the browser apps’ native packages', () => {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string; optional?: boolean }>;
  };
  const locked = new Set(Object.keys(lock.packages).map((path) => path.replace(/^.*node_modules\//, '')));

  it.each(TOOLS)("names every platform's optional package of $tool", ({ path }) => {
    const natives = Object.keys(readManifest(manifestAlong(path)).optionalDependencies ?? {});
    expect(natives.length).toBeGreaterThan(3);
    expect(natives.filter((name) => !locked.has(name))).toEqual([]);
  });
});
