#!/usr/bin/env node
// The `vane` command (bin/vane.cjs requires this file).
import { runCli } from './program.js';

void runCli(process.argv.slice(2), {
  cwd: process.cwd(),
  env: process.env,
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
}).then((code) => {
  process.exitCode = code;
});
