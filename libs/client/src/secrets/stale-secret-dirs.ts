/**
 * Removing secrets directories: the client's own on close and at exit, and
 * those a dead process left behind (killed with SIGKILL, out of memory…),
 * swept when a client starts.
 *
 * Only what the client made is removed: directories whose name records an
 * owner ({@link parseSecretDirName}), owned by this user, not symbolic
 * links; inside them, only files named as the client names them. A
 * directory holding anything else keeps it, and stays.
 *
 * @packageDocumentation
 */
import { readdirSync, rmdirSync, unlinkSync } from 'node:fs';
import { lstat, readdir, rmdir, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ownerState, parseSecretDirName } from './secret-dir-owner.js';
import { isSecretFileName } from './secret-file-name.js';

/** Removes the client's files in `dir`, then `dir` if nothing else is left in it. Never throws. */
export async function removeSecretDir(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) if (isSecretFileName(name)) await unlink(join(dir, name)).catch(() => undefined);
  await rmdir(dir).catch(() => undefined);
}

/** {@link removeSecretDir}, synchronously: for the exit hook. Never throws. */
export function removeSecretDirSync(dir: string): void {
  const attempt = (remove: () => void): void => {
    try {
      remove();
    } catch {
      // Best effort at exit: what cannot be removed now is swept by the next start.
    }
  };
  let names: string[] = [];
  attempt(() => (names = readdirSync(dir)));
  for (const name of names) if (isSecretFileName(name)) attempt(() => unlinkSync(join(dir, name)));
  attempt(() => rmdirSync(dir));
}

/** Whether `path` is a directory (not a link) owned by this process's user. */
function isOurs(stats: { isDirectory(): boolean; isSymbolicLink(): boolean; uid: number }): boolean {
  const uid = process.getuid?.();
  return stats.isDirectory() && !stats.isSymbolicLink() && (uid === undefined || stats.uid === uid);
}

/**
 * Removes the secrets directories in `parent` whose owner process is gone
 * (see `secret-dir-owner.ts` for how a dead owner is told from a live one).
 * A live process's directory, a directory made on another host or in another
 * pid namespace, one of another user, and anything not named as the client
 * names its directories are left alone. Never throws.
 *
 * Every client runs it when it starts (on the temp directory, or on its
 * `secretsDir`); call it yourself to clean up after processes that were
 * killed, without starting a client.
 *
 * @param parent - the directory to sweep; `os.tmpdir()` when omitted.
 * @returns the directories removed.
 */
export async function sweepStaleSecretDirs(parent: string = tmpdir()): Promise<string[]> {
  const names = await readdir(parent).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names) {
    const owner = parseSecretDirName(name);
    if (owner === undefined || ownerState(owner) !== 'gone') continue;
    const dir = join(parent, name);
    const stats = await lstat(dir).catch(() => undefined);
    if (stats === undefined || !isOurs(stats)) continue;
    await removeSecretDir(dir);
    if ((await lstat(dir).catch(() => undefined)) === undefined) removed.push(dir);
  }
  return removed;
}
