// Jest's global setup and teardown: the run gets a temp directory of its own
// (TMPDIR, inherited by the workers and by every child process a test starts),
// and the run fails if a test left a `vane-secrets-*` directory in it — a file
// secret that outlived its test (a client never closed, a child killed without
// a sweep after it). The directory is removed at the end either way.
const { mkdtempSync, readdirSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const VAR = 'VANE_JEST_TMPDIR';

/** Every `vane-secrets-*` directory under `dir` (links not followed). */
function leftovers(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      return entry.name.startsWith('vane-secrets-') ? [path] : leftovers(path);
    });
}

async function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'vane-jest-'));
  process.env[VAR] = dir;
  process.env.TMPDIR = dir;
}

async function teardown() {
  const dir = process.env[VAR];
  if (!dir) return;
  const left = leftovers(dir);
  rmSync(dir, { recursive: true, force: true });
  if (left.length > 0) {
    throw new Error(
      `tests left ${left.length} file-secret director${left.length === 1 ? 'y' : 'ies'} behind (close every client, sweep after a killed child):\n  ${left.join('\n  ')}`,
    );
  }
}

module.exports = { setup, teardown };
