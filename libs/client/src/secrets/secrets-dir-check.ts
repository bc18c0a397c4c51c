/**
 * Checks that a directory is fit to hold secret files: a real directory
 * (not a symbolic link), owned by the user the process runs as, and not
 * writable by group or others. Anyone who can write into it, or replace it,
 * could swap a secret file under the app or make it write elsewhere.
 *
 * @packageDocumentation
 */
import type { Stats } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { SecretFileWriteError } from '../errors.js';

/** Why a directory is refused, or undefined when it is fit. Ownership is not checked where uids do not exist (Windows). */
export function unsafeDirReason(stats: Stats, options: { privateMode: boolean }): string | undefined {
  if (stats.isSymbolicLink()) return 'it is a symbolic link';
  if (!stats.isDirectory()) return 'it is not a directory';
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid)
    return `it is owned by uid ${stats.uid}, not by the process's user (uid ${uid})`;
  if (process.platform === 'win32') return undefined;
  if ((stats.mode & (options.privateMode ? 0o077 : 0o022)) !== 0) {
    const mode = (stats.mode & 0o777).toString(8).padStart(4, '0');
    const group = (stats.mode & (options.privateMode ? 0o070 : 0o020)) !== 0;
    const others = (stats.mode & (options.privateMode ? 0o007 : 0o002)) !== 0;
    const who = group && others ? 'its group and others' : group ? 'its group' : 'others';
    return options.privateMode ? `its mode ${mode} gives ${who} access` : `its mode ${mode} lets ${who} write to it`;
  }
  return undefined;
}

/**
 * Refuses `dir` unless it is fit (see the file comment). `privateMode`
 * also refuses any access by group or others (for the client's own 0700
 * directory; a configured `secretsDir` may be readable by others).
 *
 * @throws SecretFileWriteError - naming the directory and the reason.
 */
export async function assertSafeSecretsDir(dir: string, what: string, privateMode = false): Promise<void> {
  const stats = await lstat(dir);
  const reason = unsafeDirReason(stats, { privateMode });
  if (reason !== undefined) throw new SecretFileWriteError(`${what} ${dir} is refused: ${reason}`);
}
