#!/usr/bin/env node
// Builds the sample apps (sample-app: the NestJS one in dist/, the Express one in express/dist/) with
// tsc, unless nothing they are built from changed since their last build (see build-stamp.mjs).
// `--force` (or VANE_FORCE_BUILD=1) builds anyway.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { clearStamp, staleReason, writeStamp } from './build-stamp.mjs';

const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');
const cwd = process.cwd();
const force = process.argv.includes('--force') || process.env.VANE_FORCE_BUILD === '1';
const reason = force
  ? 'forced'
  : staleReason(cwd, {
      inputs: ['src', 'express', 'tsconfig.build.json'],
      outputs: ['dist/main.js', 'express/dist/main.js'],
    });
if (reason === undefined) {
  console.log('sample apps: up to date');
  process.exit(0);
}
console.log(`sample apps: building (${reason})`);
clearStamp(cwd);
for (const project of ['tsconfig.build.json', 'express/tsconfig.build.json'])
  execFileSync(process.execPath, [tsc, '-p', project], { cwd, stdio: 'inherit' });
writeStamp(cwd);
