/**
 * File secrets on disk: a private directory (0700) of 0600 files, written
 * atomically (write, then rename) at a path that stays the same for a key,
 * and beside it, for each version a revision held by a pinned scope needs,
 * a file of that version whose content never changes.
 *
 * When files exist and what removes them is told in the client README
 * ("File secrets on disk"); in short: `close()` removes them, an exit
 * without `close()` (a signal nobody handles, `process.exit`, an uncaught
 * exception) removes them through `signal-exit`, and what a killed process
 * left is swept by the next client that starts on the same directory.
 *
 * @packageDocumentation
 */
import { constants } from 'node:fs';
import { mkdir, mkdtemp, rename, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onExit } from 'signal-exit';
import { secretDirPrefix } from './secret-dir-owner.js';
import { secretFileName, tempSuffix, versionedSecretFileName } from './secret-file-name.js';
import { assertSafeSecretsDir } from './secrets-dir-check.js';
import type { CachedSecret } from '@vane/client-core';
import { removeSecretDir, removeSecretDirSync, sweepStaleSecretDirs } from './stale-secret-dirs.js';

export { secretFileName } from './secret-file-name.js';

const liveStores = new Set<FileSecretStore>();
let removeExitHook: (() => void) | undefined;

function track(store: FileSecretStore): void {
  liveStores.add(store);
  // signal-exit also covers a signal the app does not handle (the default action
  // kills the process without an 'exit' event), and re-raises it afterwards.
  removeExitHook ??= onExit(() => {
    for (const live of liveStores) live.removeAllSync();
  });
}

function untrack(store: FileSecretStore): void {
  liveStores.delete(store);
  if (liveStores.size === 0 && removeExitHook) {
    removeExitHook();
    removeExitHook = undefined;
  }
}

// O_NOFOLLOW and O_EXCL: a name planted in the directory (a link to a file
// elsewhere) is never followed; the write fails instead. O_NOFOLLOW is 0 on Windows.
/** Flags of the temporary file each write creates. @internal */
export const SECRET_FILE_OPEN_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

let tmpCounter = 0;

/** The hold count key of one version of a file secret. */
function versionKey(key: string, version: number): string {
  return `${version}:${key}`;
}

const noop = (): void => undefined;

/**
 * Keeps the files of file-type secrets, in a directory of its own
 * (`vane-secrets-<owner>-XXXXXX`, see `secret-dir-owner.ts`) created on the
 * first write, under the OS temp dir or under the `secretsDir` given. A
 * given `secretsDir` is created (0700) if absent and must be a real
 * directory owned by the process's user and not writable by group or
 * others; it and the store's own directory are checked again before every
 * write. On close, the store's files and its directory are removed.
 *
 * Each key has its stable file (the live version, rewritten in place). A
 * version that is held ({@link FileSecretStore.hold}: the snapshot served,
 * and revisions pinned scopes still read) also gets a file of its own,
 * `<name>.v<version>`, written with the stable one and removed once the last
 * hold on it is released. Writes and removals run one at a time, in order.
 */
export class FileSecretStore {
  readonly #configuredDir: string | undefined;
  #parent: string | undefined;
  #dir: string | undefined;
  #swept = false;
  #closed = false;
  /** Holds on versions (`version:key` → count); only held versions have a file of their own. */
  readonly #holds = new Map<string, number>();
  /** The tail of the file operations: each write or removal starts once the one before it settled. */
  #queue: Promise<void> = Promise.resolve();

  /** @param dir - parent directory of the store's own; `os.tmpdir()` when omitted. */
  constructor(dir?: string) {
    this.#configuredDir = dir;
  }

  /** The store's directory, once created (`undefined` before the first file secret). */
  get directory(): string | undefined {
    return this.#dir;
  }

  /** Path of a key's file (stable across syncs), once the directory exists. */
  pathFor(key: string): string | undefined {
    return this.#dir === undefined ? undefined : join(this.#dir, secretFileName(key));
  }

  /**
   * Path of the file of one version of a key (its content never changes),
   * once the directory exists. The file exists while the version is held
   * and was written by {@link FileSecretStore.apply}.
   */
  versionPathFor(key: string, version: number): string | undefined {
    return this.#dir === undefined ? undefined : join(this.#dir, versionedSecretFileName(key, version));
  }

  /** Number of versions held (each has a file of its own). For tests and diagnostics. */
  get heldVersions(): number {
    return this.#holds.size;
  }

  /**
   * Holds the versions of the file secrets in `secrets`: {@link FileSecretStore.apply}
   * writes a file of their own for them, kept until as many
   * {@link FileSecretStore.release} calls. Hold before writing.
   */
  hold(secrets: Iterable<[string, CachedSecret]>): void {
    for (const [key, secret] of secrets) {
      if (secret.type !== 'file') continue;
      const id = versionKey(key, secret.version);
      this.#holds.set(id, (this.#holds.get(id) ?? 0) + 1);
    }
  }

  /** Releases holds taken by {@link FileSecretStore.hold}; a version no longer held loses its file. */
  release(secrets: Iterable<[string, CachedSecret]>): void {
    for (const [key, secret] of secrets) {
      if (secret.type !== 'file') continue;
      const id = versionKey(key, secret.version);
      const count = (this.#holds.get(id) ?? 0) - 1;
      if (count > 0) {
        this.#holds.set(id, count);
        continue;
      }
      this.#holds.delete(id);
      void this.#enqueue(async () => {
        // Held again meanwhile (a version served anew): its file stays.
        if (this.#closed || this.#holds.has(id)) return;
        const path = this.versionPathFor(key, secret.version);
        if (path !== undefined) await unlink(path).catch(noop);
      }).catch(noop);
    }
  }

  /** Runs `task` after every file operation queued before it. */
  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task);
    this.#queue = run.then(noop, noop);
    return run;
  }

  /** The parent directory, checked (a configured one is created if absent). */
  async #checkedParent(): Promise<string> {
    if (this.#configuredDir === undefined) return (this.#parent ??= tmpdir());
    const parent = this.#configuredDir;
    // Creates what is missing only; an existing directory (or link) is left as is, then checked.
    await mkdir(parent, { recursive: true, mode: 0o700 }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err; // a file of that name: refused just below
    });
    await assertSafeSecretsDir(parent, 'secretsDir');
    return (this.#parent = parent);
  }

  /** The store's directory, created on first use, checked (or recreated if removed) on every later one. */
  async #ensureDir(): Promise<string> {
    const parent = await this.#checkedParent();
    if (this.#dir === undefined) {
      this.#dir = await mkdtemp(join(parent, secretDirPrefix()));
      track(this);
    } else {
      // Removed behind the client's back (a temp cleaner): made again at the same path.
      await mkdir(this.#dir, { mode: 0o700 }).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err;
      });
    }
    await assertSafeSecretsDir(this.#dir, 'the secrets directory', true);
    return this.#dir;
  }

  /** Sweeps what dead processes left in the parent directory, once, before the first write. Never throws. */
  async #sweepOnce(): Promise<void> {
    if (this.#swept) return;
    this.#swept = true;
    try {
      await sweepStaleSecretDirs(await this.#checkedParent());
    } catch {
      // An unfit secretsDir is reported by the first write; nothing is swept in it.
    }
  }

  /**
   * Brings the files in line with `secrets`: writes every file secret given
   * (atomically) and removes files of keys in `removed`. Call it before the
   * cache is swapped, so a path handed out always has its content. The first
   * call also sweeps directories left by dead processes.
   *
   * @param write - file secrets to (re)write.
   * @param removed - keys whose file must go (deleted, or no longer file secrets).
   * @throws SecretFileWriteError - when `secretsDir` or the store's directory is refused (the message says why).
   */
  apply(write: Iterable<[string, CachedSecret]>, removed: Iterable<string>): Promise<void> {
    const files = [...write].filter(([, secret]) => secret.type === 'file');
    const gone = [...removed];
    return this.#enqueue(() => this.#apply(files, gone));
  }

  async #apply(files: readonly [string, CachedSecret][], removed: readonly string[]): Promise<void> {
    if (this.#closed) return;
    await this.#sweepOnce();
    if (files.length > 0) {
      const dir = await this.#ensureDir();
      for (const [key, secret] of files) {
        if (this.#holds.has(versionKey(key, secret.version)))
          await writeAtomically(join(dir, versionedSecretFileName(key, secret.version)), secret.value);
        await writeAtomically(join(dir, secretFileName(key)), secret.value);
      }
    }
    if (this.#dir === undefined) return;
    for (const key of removed) {
      if (files.some(([written]) => written === key)) continue;
      await unlink(join(this.#dir, secretFileName(key))).catch(noop);
    }
  }

  /** Removes every file written and the store's directory (once a write in progress ended). Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    untrack(this);
    this.#holds.clear();
    await this.#queue;
    if (this.#dir !== undefined) await removeSecretDir(this.#dir);
  }

  /** Synchronous best-effort removal, for the exit hook. */
  removeAllSync(): void {
    if (this.#dir !== undefined) removeSecretDirSync(this.#dir);
  }
}

/** Writes `content` to `path` through a fresh temporary file (0600, never through a planted link), then a rename. */
async function writeAtomically(path: string, content: string): Promise<void> {
  const tmp = `${path}${tempSuffix(process.pid, ++tmpCounter)}`;
  try {
    await writeFile(tmp, content, { mode: 0o600, flag: SECRET_FILE_OPEN_FLAGS });
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(noop);
    // The file system error names the path, never the content.
    throw err;
  }
}
