/**
 * Benchmarks of file secrets on disk, each against a baseline measured in
 * the same run:
 *
 * 1. a rotation through `FileSecretStore.apply` (directories checked again,
 *    exclusive create, rename) vs a bare `writeFile` + `rename` of the same bytes;
 * 2. the sweep a client runs when it starts, on a temp dir holding 10 000
 *    entries of others (and then 100 dead processes' directories to remove),
 *    vs the same sweep on an empty directory.
 *
 * Run: `npm run bench -w @vane/client` (prints a Markdown report).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileSecretStore } from '../src/secrets/file-secrets.js';
import { currentOwner, secretDirPrefix } from '../src/secrets/secret-dir-owner.js';
import { secretFileName } from '../src/secrets/secret-file-name.js';
import { sweepStaleSecretDirs } from '../src/secrets/stale-secret-dirs.js';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function usPerOp(iterations: number, body: (i: number) => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) await body(i);
  return Number(process.hrtime.bigint() - start) / 1000 / iterations;
}

async function rotationBench(): Promise<string[]> {
  const pem = 'x'.repeat(4096);
  const store = new FileSecretStore();
  await store.apply([['tls.pem', { type: 'file', value: pem, version: 1 }]], []);
  const bare = mkdtempSync(join(tmpdir(), 'vane-bench-'));
  const target = join(bare, 'tls.pem');
  const rows = { bare: [] as number[], store: [] as number[] };
  for (let round = 0; round < 7; round++) {
    rows.bare.push(
      await usPerOp(2000, async (i) => {
        await writeFile(`${target}.tmp`, pem, { mode: 0o600 });
        await rename(`${target}.tmp`, target);
        return i;
      }),
    );
    rows.store.push(
      await usPerOp(2000, (i) => store.apply([['tls.pem', { type: 'file', value: pem, version: i + 2 }]], [])),
    );
  }
  await store.close();
  rmSync(bare, { recursive: true });
  const [b, s] = [median(rows.bare), median(rows.store)];
  return [
    '### Rotation of a 4 KiB file secret',
    '',
    '| | µs per rotation (median of 7 × 2 000) | ratio |',
    '|---|---|---|',
    `| baseline: \`writeFile\` + \`rename\` | ${b.toFixed(1)} | 1.00 |`,
    `| \`FileSecretStore.apply\` (directories re-checked, O_EXCL \\| O_NOFOLLOW) | ${s.toFixed(1)} | ${(s / b).toFixed(2)} |`,
  ];
}

async function sweepBench(): Promise<string[]> {
  const empty = mkdtempSync(join(tmpdir(), 'vane-bench-'));
  const crowded = mkdtempSync(join(tmpdir(), 'vane-bench-'));
  for (let i = 0; i < 10_000; i++) writeFileSync(join(crowded, `someone-else-${i}`), '');
  const times = { empty: [] as number[], crowded: [] as number[] };
  for (let round = 0; round < 7; round++) {
    times.empty.push(await usPerOp(20, () => sweepStaleSecretDirs(empty)));
    times.crowded.push(await usPerOp(20, () => sweepStaleSecretDirs(crowded)));
  }
  // 100 directories of a process that is gone, each with a file, among the 10 000.
  const dead = spawnSync(process.execPath, ['-e', '']).pid;
  const prefix = secretDirPrefix({ ...currentOwner(), pid: dead });
  for (let i = 0; i < 100; i++) {
    const dir = join(crowded, `${prefix}${String(i).padStart(6, '0')}`);
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, secretFileName('tls.pem')), 'PEM');
  }
  const start = process.hrtime.bigint();
  const removed = await sweepStaleSecretDirs(crowded);
  const removal = Number(process.hrtime.bigint() - start) / 1000;
  if (removed.length !== 100) throw new Error(`expected 100 removed, got ${removed.length}`);
  rmSync(empty, { recursive: true });
  rmSync(crowded, { recursive: true });
  const [e, c] = [median(times.empty), median(times.crowded)];
  return [
    '### Sweep at start',
    '',
    '| | µs per sweep | ratio |',
    '|---|---|---|',
    `| baseline: empty temp dir (median of 7 × 20) | ${e.toFixed(0)} | 1.00 |`,
    `| 10 000 entries of others, nothing to remove (median of 7 × 20) | ${c.toFixed(0)} | ${(c / e).toFixed(1)} |`,
    `| the same, plus 100 dead processes' directories removed (once) | ${removal.toFixed(0)} | ${(removal / e).toFixed(1)} |`,
  ];
}

async function main(): Promise<void> {
  const lines = [
    '## File secrets on disk (`@vane/client`)',
    '',
    ...(await rotationBench()),
    '',
    ...(await sweepBench()),
  ];
  console.log(lines.join('\n'));
}

void main();
