#!/usr/bin/env node
// Builds a browser example app for production, run from its folder by its `build` script:
//   vite  examples/vite-react: type check (tsc --noEmit; Vite does not type check), then `vite build` → dist/
//   next  examples/nextjs:     `next build` (it type checks) → .next/
// unless nothing it is built from changed since its last build (see build-stamp.mjs: its sources, its
// package.json, and the stamps of @vane/browser and @vane/react, whose builds it bundles).
// `--force` (or VANE_FORCE_BUILD=1) builds anyway. Both builds run offline: no telemetry, no downloads.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { clearStamp, staleReason, writeStamp } from './build-stamp.mjs';

const require = createRequire(import.meta.url);

/** The file of `pkg`'s command-line program `bin` (from its package.json: packages do not export their bins). */
function bin(pkg, name) {
  const manifestPath = require.resolve(`${pkg}/package.json`);
  const { bin: bins } = JSON.parse(readFileSync(manifestPath, 'utf8'));
  return join(dirname(manifestPath), typeof bins === 'string' ? bins : bins[name]);
}

const BUILDS = {
  vite: {
    inputs: ['src', 'index.html', 'vite.config.ts', 'tsconfig.json'],
    outputs: ['dist/index.html'],
    steps: [
      [bin('typescript', 'tsc'), '-p', 'tsconfig.json', '--noEmit'],
      [bin('vite', 'vite'), 'build', '--logLevel', 'warn'],
    ],
  },
  next: {
    inputs: ['app', 'next.config.ts', 'tsconfig.json'],
    outputs: ['.next/BUILD_ID'],
    steps: [[bin('next', 'next'), 'build']],
  },
};

const kind = process.argv[2];
const build = BUILDS[kind];
if (!build) {
  console.error(`usage: build-example-app.mjs ${Object.keys(BUILDS).join(' | ')} [--force]`);
  process.exit(2);
}
const name = `${kind} example`;
// The packages support Node 20.18; Vite 8 needs ^20.19 || >=22.12. On an older Node the Vite app is not
// built (and `npm start` leaves it out) rather than failing the whole build.
const [major, minor] = process.versions.node.split('.').map(Number);
if (kind === 'vite' && !((major === 20 && minor >= 19) || (major === 22 && minor >= 12) || major > 22)) {
  console.log(`${name}: skipped, Vite 8 needs Node ^20.19 || >=22.12 (this is ${process.version})`);
  process.exit(0);
}
const cwd = process.cwd();
const force = process.argv.includes('--force') || process.env.VANE_FORCE_BUILD === '1';
const reason = force ? 'forced' : staleReason(cwd, build);
if (reason === undefined) {
  console.log(`${name}: up to date`);
  process.exit(0);
}
console.log(`${name}: building (${reason})`);
clearStamp(cwd);
for (const [script, ...args] of build.steps) {
  try {
    execFileSync(process.execPath, [script, ...args], {
      cwd,
      stdio: 'inherit',
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' },
    });
  } catch (err) {
    // The step printed its errors above; no stack of this script on top of them.
    console.error(`${name}: build failed (${relative(cwd, script)} ${args.join(' ')}: ${err.status ?? err.signal})`);
    process.exit(1);
  }
}
writeStamp(cwd);
