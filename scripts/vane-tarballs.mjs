// The @vane/* packages as `npm pack` makes them, and what installing one from its tarball takes: before
// the packages are published, a tarball's @vane/* dependencies are not on the registry, so an install
// names their tarballs too (npm then uses them, as it will use the registry's). Used by `npm start`'s
// "in an app of your own" lines and by the newcomer suite, which runs such installs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Every published workspace: package name → its directory (relative to the root) and manifest. */
function packages() {
  const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const found = new Map();
  for (const dir of workspaces) {
    const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
    if (!manifest.private) found.set(manifest.name, { dir, manifest });
  }
  return found;
}

/** The workspace directory of a published @vane/* package (`libs/client`). */
export function workspaceOf(name) {
  const found = packages().get(name);
  if (!found) throw new Error(`${name} is not a published workspace`);
  return found.dir;
}

/** The file `npm pack` writes for a published @vane/* package: `vane-client-0.1.0.tgz`. */
export function tarballName(name) {
  const found = packages().get(name);
  if (!found) throw new Error(`${name} is not a published workspace`);
  return `${name.replace(/^@/, '').replace('/', '-')}-${found.manifest.version}.tgz`;
}

/**
 * `names` with every @vane/* package they depend on (dependencies, transitively), each once, in the
 * order met: what an install from tarballs must name.
 */
export function withVaneDependencies(names) {
  const all = packages();
  const out = [];
  const visit = (name) => {
    if (out.includes(name)) return;
    const found = all.get(name);
    if (!found) throw new Error(`${name} is not a published workspace`);
    out.push(name);
    for (const dependency of Object.keys(found.manifest.dependencies ?? {})) {
      if (dependency.startsWith('@vane/')) visit(dependency);
    }
  };
  for (const name of names) visit(name);
  return out;
}
