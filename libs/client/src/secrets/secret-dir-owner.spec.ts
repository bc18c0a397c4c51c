import { spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  currentOwner,
  ownerState,
  parseSecretDirName,
  processStartTicks,
  secretDirPrefix,
  type SecretDirOwner,
} from './secret-dir-owner.js';
import { PROCESS_TEST_MS } from '@vane/test-harness';

async function exitedPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await once(child, 'exit');
  return child.pid!;
}

describe('secret directory owners', () => {
  it('a directory name records this process, and reads back', () => {
    const me = currentOwner();
    expect(me.pid).toBe(process.pid);
    expect(parseSecretDirName(`${secretDirPrefix()}Ab12Cd`)).toEqual(me);
    expect(parseSecretDirName('vane-secrets-Ab12Cd')).toBeUndefined(); // the older, unmarked layout
    expect(parseSecretDirName(`${secretDirPrefix()}Ab12Cd/..`)).toBeUndefined();
    expect(parseSecretDirName('other-dir')).toBeUndefined();
  });

  it('on Linux, the start time comes from /proc and tells a reused pid', () => {
    expect(process.platform).toBe('linux');
    expect(currentOwner().start).toBe(processStartTicks(process.pid));
    expect(currentOwner().start).toMatch(/^[1-9]\d*$/);
    expect(currentOwner().boot).toMatch(/^[0-9a-f]{8}$/);
  });

  it(
    'this process is alive; so is another live process, unless its start time differs (a reused pid)',
    async () => {
      expect(ownerState(currentOwner())).toBe('alive');
      const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      try {
        await once(child, 'spawn');
        const start = processStartTicks(child.pid!)!;
        const other: SecretDirOwner = { ...currentOwner(), pid: child.pid!, start };
        expect(ownerState(other)).toBe('alive');
        expect(ownerState({ ...other, start: String(Number(start) + 1) })).toBe('gone');
      } finally {
        child.kill();
        await once(child, 'exit');
      }
    },
    PROCESS_TEST_MS,
  );

  it(
    'a pid no process has is gone; another boot of this host is gone; another host or pid namespace is unknown',
    async () => {
      const dead: SecretDirOwner = { ...currentOwner(), pid: await exitedPid() };
      expect(ownerState(dead)).toBe('gone');
      expect(
        ownerState({ ...currentOwner(), boot: 'ffffffff' === currentOwner().boot ? '00000000' : 'ffffffff' }),
      ).toBe('gone');
      const elsewhere = { ...dead, place: currentOwner().place === '00000000' ? '11111111' : '00000000' };
      expect(ownerState(elsewhere)).toBe('unknown');
    },
    PROCESS_TEST_MS,
  );
});
