#!/usr/bin/env node
// The `vane-local-server` command. This file is committed, not built: npm links a package's bin at install
// time, and in this repository `dist/` does not exist until `npm run build`, so a bin pointing into `dist/`
// got no link after `npm ci` and `npx vane-local-server` went looking in the public registry instead.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const cli = join(__dirname, '..', 'dist', 'cjs', 'cli.js');
if (!existsSync(cli)) {
  console.error(`vane-local-server: ${cli} is missing: build the package first (npm run build at the repository root)`);
  process.exit(1);
}
require(cli);
