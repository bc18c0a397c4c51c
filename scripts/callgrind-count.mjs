// Counts the machine instructions an app's main thread executes per request, under valgrind's
// callgrind: what the instruction-count benchmarks of libs/nestjs and libs/express share.
//
// Why count: on a shared machine, requests per second of one app drift 20 % from round to
// round, while the costs these benchmarks look at are a few per cent. Counts of the same app
// repeat within a few per cent. They are not time (a cache miss counts as little as an add),
// but a route doing 16 % more work than another serves about 86 % of its requests.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { portPrintedBy } from './app-port.mjs';

/** Whether valgrind is installed (the benchmarks skip, saying so, without it). */
export function valgrindAvailable() {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `node <appArgs…>` under callgrind; once it prints `{"port": n}`, calls `load(port,
 * warmup)` uncounted, then `beforeCount(port)` if given, then `load(port, counted)` counted,
 * and resolves with the main thread's instructions per counted request. `load` sends that
 * many requests and resolves when done. `beforeCount` is where a benchmark has its app
 * collect garbage (a route calling `gc()`, the app run with `--expose-gc`): a full collection
 * that happens to fall inside the counted window adds about 90,000 instructions to every
 * request's share, so without one the same app's counts differed by up to 5 %.
 */
export async function mainThreadInstructionsPerRequest({ appArgs, env = {}, load, warmup, counted, beforeCount }) {
  const outDir = mkdtempSync(join(os.tmpdir(), 'vane-callgrind-'));
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--smc-check=all', // V8 writes and patches its own machine code
      '--instr-atstart=no',
      // One file per thread: only the main thread's count, where requests run. V8 compiles
      // and marks on threads of its own, whose work lands in lumps (measured: up to a third
      // of all instructions in a window of 1,000 requests) and is not per-request work.
      '--separate-threads=yes',
      `--callgrind-out-file=${join(outDir, 'callgrind.%p')}`,
      process.execPath,
      ...appArgs,
    ],
    { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, ...env } },
  );
  try {
    const port = await portPrintedBy(child, 180_000, 'the app under valgrind');
    await load(port, warmup);
    await beforeCount?.(port);
    const control = (...flags) => execFileSync('callgrind_control', [...flags, String(child.pid)], { stdio: 'ignore' });
    control('-i', 'on');
    await load(port, counted);
    control('-d');
    // The main thread's file (`callgrind.<pid>.<dump>-01`).
    const file = readdirSync(outDir).find((f) => f.startsWith(`callgrind.${child.pid}.`) && f.endsWith('-01'));
    const totals = file && /^totals: (\d+)$/m.exec(readFileSync(join(outDir, file), 'utf8'));
    if (!totals) throw new Error('callgrind wrote no totals');
    return Number(totals[1]) / counted;
  } finally {
    child.kill('SIGKILL');
    rmSync(outDir, { recursive: true, force: true });
  }
}

/** Runs `measure` over `jobs` two at a time (one per core), in order; resolves with the results in order. */
export async function twoAtATime(jobs, measure) {
  const results = [];
  for (let i = 0; i < jobs.length; i += 2) results.push(...(await Promise.all(jobs.slice(i, i + 2).map(measure))));
  return results;
}
