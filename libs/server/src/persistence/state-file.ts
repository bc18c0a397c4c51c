/**
 * The `--state` file (PROTOCOL §11): every change persisted atomically, and
 * reloaded on start. A reader sees either the previous complete file or the
 * next one, never a half-written file, even if the process dies mid-write.
 */
import { readFileSync } from 'node:fs';
import { open, readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { JsonValue, ServerData } from '../domain/model.js';
import type { SealingCodec } from '../sealing/sealing-codec.js';
import { describeFsError } from '../errors/fs-errors.js';
import { SeedError } from '../seed/seed-error.js';
import { parseServerDataJson } from '../seed/seed-parser.js';
import { serializeServerData } from './state-serializer.js';

/** Ends the name of temporary files, so a crash's leftovers are recognisable. */
const TEMP_SUFFIX = '.tmp';

/**
 * Persists {@link ServerData} to one JSON file, in the state form of
 * `serializeServerData` with every secret value sealed, readable only by its
 * owner (mode 0600).
 *
 * Writes are serialised: each goes to a temporary file in the same
 * directory, is fsynced, then renamed over the target. Between two writes,
 * the journal ({@link StateJournal}) holds every change.
 */
export class StateFile {
  /** The target file. */
  readonly path: string;
  /** The end of the chain of writes; every write waits for the previous one. */
  private tail: Promise<void> = Promise.resolve();
  private tempCounter = 0;

  /**
   * @param path - the state file.
   * @param codec - seals what is written and opens what is read.
   */
  constructor(
    path: string,
    private readonly codec: SealingCodec,
  ) {
    this.path = path;
  }

  /**
   * Reads the file.
   *
   * @returns undefined when the file does not exist.
   * @throws SeedError naming the file (and the JSON path, or line and column)
   *   when it cannot be read or is not valid state; never a silent reset.
   * @throws RootKeyMissingError when it is sealed by a root key the codec's keyring lacks.
   */
  load(): ServerData | undefined {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new SeedError(this.path, '', `cannot read the state file (${describeFsError(error)})`, { cause: error });
    }
    return parseServerDataJson(text, this.path, { openSealed: (json) => this.codec.openState(json) });
  }

  /**
   * Writes `data` now (after any write already under way) and resolves once
   * it is on disk. `data` is serialised before this returns, so later
   * changes to it are not written.
   */
  writeNow(data: ServerData): Promise<void> {
    // Serialised before anything is awaited, so `data` is read now.
    return this.writeText(renderStateText(data, this.codec));
  }

  /** Writes text made by {@link renderStateText} (after any write already under way); resolves once it is on disk. */
  async writeText(text: string): Promise<void> {
    const write = this.tail.then(() => this.replace(text));
    // The chain must survive a failed write; the caller sees the failure through `write`.
    this.tail = write.catch(() => undefined);
    await write;
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

/** The state file's text for `data`: the state form of `serializeServerData`, sealed by `codec`, indented. */
export function renderStateText(data: ServerData, codec: SealingCodec): string {
  const state = serializeServerData(data) as { [key: string]: JsonValue };
  codec.sealState(state, data);
  // `sealing` first, so a reader can tell a sealed state from the file's first line.
  const { sealing, ...rest } = state;
  return `${JSON.stringify({ sealing: sealing!, ...rest }, null, 2)}\n`;
}

/**
 * Removes the temporary files an earlier process left when it died
 * mid-write (`.<name>.<pid>.<n>.tmp` beside the state file): they may hold
 * secret values. Files of a live process are never this process's own, and
 * one server owns a state file at a time.
 */
export async function removeCrashLeftovers(path: string): Promise<string[]> {
  const directory = dirname(path);
  const prefix = `.${basename(path)}.`;
  let names: string[];
  try {
    names = await readdir(directory);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix) || !/^\d+\.\d+\.tmp$/.test(name.slice(prefix.length))) continue;
    await unlink(join(directory, name)).catch(() => undefined);
    removed.push(name);
  }
  return removed;
}

/** Makes a rename in `directory` durable; not every platform can open a directory, so failure is ignored. */
export async function syncDirectory(directory: string): Promise<void> {
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
