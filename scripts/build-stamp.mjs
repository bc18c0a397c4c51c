// Whether a workspace's build is up to date, so that `npm start` and `npm test` (which build first)
// rebuild only what changed. A build leaves a stamp file in the workspace (`.build-stamp`, ignored by
// git, outside `dist` so that `npm pack` never ships it); the build is up to date when its outputs
// exist and the stamp is newer than every input: the sources (spec files aside: no build emits them),
// the package and TypeScript configuration, the build scripts, and the stamps of the @vane/* workspaces
// it depends on (their types are part of its type check). Anything missing counts as changed.
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STAMP = '.build-stamp';

/** The newest modification time under `path` (a file or a folder), or `Infinity` when it is missing. */
function newestMs(path) {
  if (!existsSync(path)) return Number.POSITIVE_INFINITY;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs; // a deleted file shows as a newer folder
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.endsWith('.spec.ts')) continue;
    newest = Math.max(newest, newestMs(join(path, entry.name)));
  }
  return newest;
}

/** The folders of the @vane/* workspaces the workspace in `dir` depends on. */
function vaneDependencies(dir) {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  return Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })
    .filter((name) => name.startsWith('@vane/'))
    .map((name) => join(ROOT, 'libs', name.slice('@vane/'.length)));
}

/**
 * Why the workspace in `dir` must be built, or `undefined` when it is up to date.
 *
 * @param dir - the workspace folder.
 * @param settings - `inputs` and `outputs`, relative to `dir` (the package.json, the build scripts and the
 *   stamps of the @vane/* dependencies are always inputs).
 */
export function staleReason(dir, { inputs, outputs }) {
  const stamp = join(dir, STAMP);
  if (!existsSync(stamp)) return 'not built yet';
  const missing = outputs.find((output) => !existsSync(join(dir, output)));
  if (missing) return `${missing} is missing`;
  const builtMs = statSync(stamp).mtimeMs;
  const all = [
    ...[...inputs, 'package.json'].map((input) => join(dir, input)),
    join(ROOT, 'tsconfig.base.json'),
    fileURLToPath(import.meta.url),
    join(ROOT, 'scripts', 'build-lib.mjs'),
    ...vaneDependencies(dir).map((dependency) => join(dependency, STAMP)),
  ];
  const changed = all.find((input) => newestMs(input) >= builtMs);
  return changed === undefined ? undefined : `${relative(ROOT, changed)} changed`;
}

/** Forgets the last build of the workspace in `dir` (call it before building: a failed build leaves none). */
export function clearStamp(dir) {
  rmSync(join(dir, STAMP), { force: true });
}

/** Records a successful build of the workspace in `dir`. */
export function writeStamp(dir) {
  writeFileSync(join(dir, STAMP), `${new Date().toISOString()}\n`);
}
