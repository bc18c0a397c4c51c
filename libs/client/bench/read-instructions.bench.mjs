#!/usr/bin/env node
// What a read costs, counted in machine instructions rather than timed: a timed read is a few
// nanoseconds, below what a shared 2-core machine can tell apart. The same process (the built
// client on an in-process local server, 1,024 configs and flags) runs each kind of read 1,000,000
// times under valgrind's callgrind, counting only that window on the main thread; the figure is
// instructions per read with the loop's own cost taken off, and the ratio to a bare `Map.get`.
// Reads through a `view()` run in between, so `config()` and `flag()` are counted as an app
// that uses both reads them. Needs `valgrind`; skips with a message without it.
// Run after `npm run build`: `node bench/read-instructions.bench.mjs` in libs/client.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { valgrindAvailable } from '../../../scripts/callgrind-count.mjs';

const READS = 1_000_000;
const KINDS = ['empty', 'map', 'config', 'flagMap', 'flag', 'view', 'map', 'config', 'flagMap', 'flag'];

/** The counted process: runs the reads it is told to on stdin, answers `done`. */
async function target() {
  const { VaneClient } = await import('@vane/client');
  const { startVaneServer } = await import('@vane/server');
  const key = 'svs_bench_secret_key_0000000001';
  const configs = {};
  const flags = {};
  for (let i = 0; i < 1024; i++) {
    configs[`section${i % 32}.key${i}`] = i % 2 ? `value-${i}` : i;
    flags[`flag-${i}`] = { is_enabled: i % 3 === 0 };
  }
  const server = await startVaneServer({
    seed: { services: { bench: { kind: 'backend', keys: [key], configs, flags } } },
    port: 0,
  });
  const client = await VaneClient.create({ baseUrl: server.baseUrl('bench'), apiKey: key, stream: false });
  const configKeys = Object.keys(configs);
  const flagKeys = Object.keys(flags);
  const configMap = new Map(client.configs());
  const flagMap = new Map(flagKeys.map((k) => [k, client.flag(k)]));
  let sink = 0;
  const reads = {
    empty: (n) => {
      for (let i = 0; i < n; i++) if (i === -1) sink++;
    },
    map: (n) => {
      for (let i = 0; i < n; i++) if (configMap.get(configKeys[i & 1023]) !== undefined) sink++;
    },
    config: (n) => {
      for (let i = 0; i < n; i++) if (client.config(configKeys[i & 1023]) !== undefined) sink++;
    },
    flagMap: (n) => {
      for (let i = 0; i < n; i++) if (flagMap.get(flagKeys[i & 1023]) === true) sink++;
    },
    flag: (n) => {
      for (let i = 0; i < n; i++) if (client.flag(flagKeys[i & 1023])) sink++;
    },
    view: (n) => {
      const view = client.view();
      for (let i = 0; i < n; i++)
        if (view.config(configKeys[i & 1023]) !== undefined || view.flag(flagKeys[i & 1023])) sink++;
      view.release();
    },
  };
  for (const [kind, run] of Object.entries(reads)) if (kind !== 'view') run(300_000); // optimised before counting
  console.log('ready');
  for await (const line of createInterface({ input: process.stdin })) {
    if (line === 'quit') break;
    reads[line](READS);
    console.log('done');
  }
  if (sink === -1) console.log(sink);
  await client.close();
  await server.close();
}

/** Counts each kind of read in a target process under callgrind; prints a Markdown table. */
async function main() {
  if (!valgrindAvailable()) {
    console.log('valgrind is not installed: skipped (Debian: apt-get install valgrind)');
    return;
  }
  const out = mkdtempSync(join(os.tmpdir(), 'vane-read-instructions-'));
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--smc-check=all',
      '--instr-atstart=no',
      '--separate-threads=yes',
      `--callgrind-out-file=${join(out, 'callgrind.%p')}`,
      process.execPath,
      fileURLToPath(import.meta.url),
      '--target',
    ],
    { stdio: ['pipe', 'pipe', 'ignore'] },
  );
  try {
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const next = async () => (await lines.next()).value;
    if ((await next()) !== 'ready') throw new Error('the target did not start');
    const control = (...flags) => execFileSync('callgrind_control', [...flags, String(child.pid)], { stdio: 'ignore' });
    const counts = {};
    for (const [dump, kind] of KINDS.entries()) {
      control('-z');
      control('-i', 'on');
      child.stdin.write(`${kind}\n`);
      if ((await next()) !== 'done') throw new Error(`no answer to ${kind}`);
      control('-i', 'off');
      control('-d');
      const file = readdirSync(out).find((f) => f.startsWith(`callgrind.${child.pid}.${dump + 1}-01`));
      const totals = file && /^totals: (\d+)$/m.exec(readFileSync(join(out, file), 'utf8'));
      if (!totals) throw new Error('callgrind wrote no totals');
      (counts[kind] ??= []).push(Number(totals[1]) / READS);
    }
    child.stdin.write('quit\n');
    const loop = counts.empty[0];
    const per = (kind) => Math.min(...counts[kind]) - loop;
    console.log(
      `Node ${process.version}, instructions per read (the loop's ${loop.toFixed(0)} taken off), the lower of two counts:\n`,
    );
    console.log('| read | instructions | baseline | ratio |\n|---|---:|---:|---:|');
    console.log(
      `| \`client.config(key)\` vs \`Map.get(key)\` | ${per('config').toFixed(0)} | ${per('map').toFixed(0)} | ${(per('config') / per('map')).toFixed(2)}x |`,
    );
    console.log(
      `| \`client.flag(key)\` vs \`Map.get(key)\` | ${per('flag').toFixed(0)} | ${per('flagMap').toFixed(0)} | ${(per('flag') / per('flagMap')).toFixed(2)}x |`,
    );
  } finally {
    child.kill('SIGKILL');
    rmSync(out, { recursive: true, force: true });
  }
}

await (process.argv.includes('--target') ? target() : main());
