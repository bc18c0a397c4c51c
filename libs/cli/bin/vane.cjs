#!/usr/bin/env node
// The `vane` command. This file is committed, not built: npm links a package's bin at install time, and in
// this repository `dist/` does not exist until `npm run build` (see libs/server/bin/vane-server.cjs).
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const cli = join(__dirname, '..', 'dist', 'cjs', 'cli.js');
if (!existsSync(cli)) {
  console.error(`vane: ${cli} is missing: build the package first (npm run build at the repository root)`);
  process.exit(2);
}
require(cli);
