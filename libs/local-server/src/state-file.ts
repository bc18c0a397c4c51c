/**
 * The `--state` file (PROTOCOL §11): every change persisted atomically, and
 * reloaded on start. A reader sees either the previous complete file or the
 * next one, never a half-written file, even if the process dies mid-write.
 */
import { readFileSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { ServerData } from './model.js';
import { SeedError, describeFsError, parseServerDataJson, serializeServerData } from './seed.js';

/** Options of {@link StateFile}. */
export interface StateFileOptions {
  /**
   * Receives the error of a write started by {@link StateFile.schedule} (or a
   * snapshot that threw; a thrown non-Error is wrapped in an Error).
   * Background writes never reject anywhere else.
   * @default emits a process warning naming the file
   */
  onError?: (error: Error) => void;
}

/** Ends the name of temporary files, so a crash's leftovers are recognisable. */
const TEMP_SUFFIX = '.tmp';

/**
 * Persists {@link ServerData} to one JSON file, in the state form of
 * `serializeServerData`, readable only by its owner (mode 0600: it holds
 * secret values).
 *
 * Writes are serialised: each goes to a temporary file in the same
 * directory, is fsynced, then renamed over the target. {@link schedule}
 * coalesces bursts of changes into as few writes as possible.
 */
export class StateFile {
  /** The target file. */
  readonly path: string;
  private readonly onError: (error: Error) => void;
  /** The latest snapshot scheduled and not yet taken by a write. */
  private pending: (() => ServerData) | undefined;
  /** Set while a background write is waiting for its turn or running. */
  private draining = false;
  /** The end of the chain of writes; every write waits for the previous one. */
  private tail: Promise<void> = Promise.resolve();
  private idleWaiters: Array<() => void> = [];
  private tempCounter = 0;

  constructor(path: string, options: StateFileOptions = {}) {
    this.path = path;
    this.onError =
      options.onError ??
      ((error) => {
        process.emitWarning(`could not write the state file ${path}: ${error.message}`, { code: 'VANE_STATE_FILE' });
      });
  }

  /**
   * Reads the file.
   *
   * @returns undefined when the file does not exist.
   * @throws SeedError naming the file (and the JSON path, or line and column)
   *   when it cannot be read or is not valid state; never a silent reset.
   */
  load(): ServerData | undefined {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new SeedError(this.path, '', `cannot read the state file (${describeFsError(error)})`, { cause: error });
    }
    return parseServerDataJson(text, this.path);
  }

  /**
   * Writes `data` now (after any write already under way) and resolves once
   * it is on disk. `data` is serialised before this returns, so later
   * changes to it are not written.
   */
  async writeNow(data: ServerData): Promise<void> {
    // Everything before the first await runs synchronously, so `data` is read now.
    const text = `${JSON.stringify(serializeServerData(data), null, 2)}\n`;
    const write = this.tail.then(() => this.replace(text));
    // The chain must survive a failed write; the caller sees the failure through `write`.
    this.tail = write.catch(() => undefined);
    await write;
  }

  /**
   * Asks for the data to be written soon. `snapshot` is called when the
   * write starts (on `setImmediate`, or after the write under way), so a
   * burst of calls costs one write and the latest snapshot wins. At most one
   * write is in flight. Failures go to `onError`.
   */
  schedule(snapshot: () => ServerData): void {
    this.pending = snapshot;
    if (this.draining) return;
    this.draining = true;
    setImmediate(() => void this.drain());
  }

  /**
   * Resolves when everything scheduled so far has been written (or has
   * failed and been reported to `onError`), and every `writeNow` started
   * before this call has settled. Never rejects.
   */
  flush(): Promise<void> {
    const written = this.tail;
    if (!this.draining) return written;
    return new Promise<void>((resolve) => {
      this.idleWaiters.push(resolve);
    }).then(() => written);
  }

  private async drain(): Promise<void> {
    while (this.pending !== undefined) {
      const snapshot = this.pending;
      this.pending = undefined;
      try {
        await this.writeNow(snapshot());
      } catch (error) {
        this.onError(error instanceof Error ? error : new Error(String(error)));
      }
    }
    this.draining = false;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private async replace(text: string): Promise<void> {
    const directory = dirname(this.path);
    this.tempCounter += 1;
    const temp = join(directory, `.${basename(this.path)}.${process.pid}.${this.tempCounter}${TEMP_SUFFIX}`);
    try {
      // 'wx': never follow or reuse a file someone else put there.
      const handle = await open(temp, 'wx', 0o600);
      try {
        // The mode given to open is reduced by the umask; make sure of 0600.
        await handle.chmod(0o600);
        await handle.writeFile(text, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, this.path);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw error;
    }
    await syncDirectory(directory);
  }
}

/** Makes the rename itself durable; not every platform can open a directory, so failure is ignored. */
async function syncDirectory(directory: string): Promise<void> {
  try {
    const handle = await open(directory, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Best effort: the data file itself is already fsynced.
  }
}
