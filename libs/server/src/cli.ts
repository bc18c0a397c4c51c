#!/usr/bin/env node
import { programOf, runCli } from './commands/run-cli.js';

const program = programOf(process.argv[1]);
runCli(program, process.argv.slice(2), {
  env: process.env,
  out: (line) => console.log(line),
  err: (line) => console.error(line),
}).then(
  (code) => {
    if (code !== 'running') process.exitCode = code;
  },
  (error: Error) => {
    console.error(`${program}: ${error.message}`);
    process.exitCode = 1;
  },
);
