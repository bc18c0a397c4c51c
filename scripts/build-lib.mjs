#!/usr/bin/env node
// Builds the workspace package in the current directory twice, as ESM (dist/esm)
// and as CommonJS (dist/cjs), because NestJS 12 apps are ESM-only and NestJS 11
// apps are CommonJS: our packages must load natively in both. Skipped when
// nothing it is built from changed since its last build (see build-stamp.mjs);
// `--force` (or VANE_FORCE_BUILD=1) builds anyway.
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { clearStamp, staleReason, writeStamp } from './build-stamp.mjs';

const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');
const cwd = process.cwd();
const dist = join(cwd, 'dist');

const { name } = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8'));
const force = process.argv.includes('--force') || process.env.VANE_FORCE_BUILD === '1';
const reason = force
  ? 'forced'
  : staleReason(cwd, { inputs: ['src', 'tsconfig.build.json'], outputs: ['dist/esm', 'dist/cjs'] });
if (reason === undefined) {
  console.log(`${name}: up to date`);
  process.exit(0);
}
console.log(`${name}: building (${reason})`);
clearStamp(cwd);
rmSync(dist, { recursive: true, force: true });

/** Folders under src/ whose files ship unchanged. */
const staticDirs = ['console/static'].filter((dir) => existsSync(join(cwd, 'src', dir)));

const builds = [
  { dir: 'esm', type: 'module', args: ['--module', 'ES2022', '--moduleResolution', 'Bundler'] },
  { dir: 'cjs', type: 'commonjs', args: ['--module', 'CommonJS', '--moduleResolution', 'Node10'] },
];

for (const build of builds) {
  const outDir = join(dist, build.dir);
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', outDir, ...build.args], {
    cwd,
    stdio: 'inherit',
  });
  mkdirSync(outDir, { recursive: true });
  // Tells Node (and TypeScript) which module system the files in this folder use.
  writeFileSync(join(outDir, 'package.json'), JSON.stringify({ type: build.type }) + '\n');
  // Files the code serves as they are (the local server's web console), beside the modules that serve them.
  for (const assets of staticDirs) cpSync(join(cwd, 'src', assets), join(outDir, assets), { recursive: true });
}

// A built file that starts with `#!` is a command (the local server's cli.js): make it executable, as
// `npm pack` and a direct `./dist/cjs/cli.js` expect. tsc writes every file 0644.
for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
  const file = join(entry.parentPath, entry.name);
  if (readFileSync(file, 'utf8').startsWith('#!')) chmodSync(file, 0o755);
}

writeStamp(cwd);
