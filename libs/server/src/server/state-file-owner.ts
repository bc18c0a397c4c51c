import { hostname } from 'node:os';
import { open, readFile, unlink } from 'node:fs/promises';
import { StoreOpenError } from '../errors/store-errors.js';

/** The running server that owns a state file, released on close. */
export interface StateFileOwner {
  release(): Promise<void>;
}

/**
 * Takes ownership of a state file: `<state>.lock`, created exclusively and
 * naming this process. A file store has one owner: a second server on the
 * same file would serve diverging revisions and tear the journal, so it
 * refuses to start, naming the process that holds the file. A lock left by
 * a process that is gone (a crash) is taken over.
 *
 * @throws StoreOpenError naming the owner's pid and host.
 */
export async function ownStateFile(statePath: string): Promise<StateFileOwner> {
  const lockPath = `${statePath}.lock`;
  const me = `${process.pid}@${hostname()}`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      await handle.writeFile(`${me}\n`);
      await handle.close();
      return {
        async release() {
          const holder = await readFile(lockPath, 'utf8').catch(() => '');
          if (holder.trim() === me) await unlink(lockPath).catch(() => undefined);
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = (await readFile(lockPath, 'utf8').catch(() => '')).trim();
    const [pid, host] = holder.split('@');
    if (holder !== '' && (host !== hostname() || isAlive(Number(pid)))) {
      throw new StoreOpenError(
        `${statePath} is in use by another Vane server (pid ${pid} on ${host}, per ${lockPath}): ` +
          'a file store has one owner; stop that server, or run a fleet on PostgreSQL',
      );
    }
    // Its owner is gone (or the file is empty, torn by a crash while it was written): take it over.
    await unlink(lockPath).catch(() => undefined);
  }
  throw new StoreOpenError(`${statePath}: could not take ${lockPath} (another server is starting on it)`);
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
