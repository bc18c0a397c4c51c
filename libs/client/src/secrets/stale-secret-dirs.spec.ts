import { spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { currentOwner, secretDirPrefix } from './secret-dir-owner.js';
import { secretFileName } from './secret-file-name.js';
import { sweepStaleSecretDirs } from './stale-secret-dirs.js';
import { PROCESS_TEST_MS } from '@vane/test-harness';

async function deadOwnerPrefix(): Promise<string> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await once(child, 'exit');
  return secretDirPrefix({ ...currentOwner(), pid: child.pid! });
}

describe('sweepStaleSecretDirs', () => {
  let parent: string;
  beforeEach(() => {
    parent = mkdtempSync(join(tmpdir(), 'vane-sweep-spec-'));
  });
  afterEach(() => rmSync(parent, { recursive: true, force: true }));

  const makeDir = (name: string, files: string[] = [secretFileName('tls.pem')]): string => {
    const dir = join(parent, name);
    mkdirSync(dir, { mode: 0o700 });
    for (const file of files) writeFileSync(join(dir, file), 'PEM', { mode: 0o600 });
    return dir;
  };

  it(
    "removes a dead process's directory, and leaves this live process's directory and unmarked ones",
    async () => {
      const dead = makeDir(`${await deadOwnerPrefix()}Ab12Cd`, [secretFileName('a'), `${secretFileName('b')}.tmp-1-2`]);
      const live = makeDir(`${secretDirPrefix()}Zz99Yy`);
      const unmarked = makeDir('vane-secrets-Qq11Ww');
      const unrelated = makeDir('something-else');
      expect(await sweepStaleSecretDirs(parent)).toEqual([dead]);
      expect(existsSync(dead)).toBe(false);
      for (const kept of [live, unmarked, unrelated]) expect(readdirSync(kept)).toEqual([secretFileName('tls.pem')]);
    },
    PROCESS_TEST_MS,
  );

  it(
    'inside a dead directory, removes only the files the client names; the rest, and the directory, stay',
    async () => {
      const dead = makeDir(`${await deadOwnerPrefix()}Ab12Cd`, [secretFileName('a'), 'notes.txt']);
      expect(await sweepStaleSecretDirs(parent)).toEqual([]);
      expect(readdirSync(dead)).toEqual(['notes.txt']);
    },
    PROCESS_TEST_MS,
  );

  it(
    "never follows a link named like a dead process's directory, nor touches another user's directory",
    async () => {
      const prefix = await deadOwnerPrefix();
      const victim = makeDir('victim');
      symlinkSync(victim, join(parent, `${prefix}Link01`));
      const foreign = makeDir(`${prefix}Other1`);
      chownSync(foreign, 4242, 4242);
      expect(await sweepStaleSecretDirs(parent)).toEqual([]);
      expect(readdirSync(victim)).toEqual([secretFileName('tls.pem')]);
      expect(readdirSync(foreign)).toEqual([secretFileName('tls.pem')]);
    },
    PROCESS_TEST_MS,
  );

  it('a parent that cannot be read is no error', async () => {
    await expect(sweepStaleSecretDirs(join(parent, 'absent'))).resolves.toEqual([]);
  });
});
