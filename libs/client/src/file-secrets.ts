/**
 * File secrets on disk: a private directory (0700) of 0600 files, written
 * atomically (write, then rename) at a path that stays the same for a key.
 *
 * @packageDocumentation
 */
import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SecretRecord } from './snapshot.js';

const liveStores = new Set<FileSecretStore>();
let exitHookInstalled = false;

function onProcessExit(): void {
  for (const store of liveStores) store.removeAllSync();
}

function track(store: FileSecretStore): void {
  liveStores.add(store);
  if (!exitHookInstalled) {
    process.on('exit', onProcessExit);
    exitHookInstalled = true;
  }
}

function untrack(store: FileSecretStore): void {
  liveStores.delete(store);
  if (liveStores.size === 0 && exitHookInstalled) {
    process.removeListener('exit', onProcessExit);
    exitHookInstalled = false;
  }
}

/**
 * The file name of a secret: a hash (unique even on case-insensitive file
 * systems, safe for keys like `..`) followed by a readable part of the key.
 */
export function secretFileName(key: string): string {
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 16);
  const readable = key.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100);
  return `${hash}-${readable}`;
}

let tmpCounter = 0;

/**
 * Keeps the files of file-type secrets. The directory is created on the
 * first write: a fresh `mkdtemp` under the OS temp dir (removed on close),
 * or the directory given (created if absent, set to 0700; only our files are
 * removed on close).
 */
export class FileSecretStore {
  readonly #configuredDir: string | undefined;
  #dir: string | undefined;
  #ownsDir = false;
  readonly #written = new Set<string>();
  #closed = false;

  /** @param dir - directory to use; a fresh private one under `os.tmpdir()` when omitted. */
  constructor(dir?: string) {
    this.#configuredDir = dir;
  }

  /** The directory, once created (`undefined` before the first file secret). */
  get directory(): string | undefined {
    return this.#dir;
  }

  /** Path of a key's file (stable across syncs), once the directory exists. */
  pathFor(key: string): string | undefined {
    return this.#dir === undefined ? undefined : join(this.#dir, secretFileName(key));
  }

  async #ensureDir(): Promise<string> {
    if (this.#dir !== undefined) return this.#dir;
    let dir: string;
    if (this.#configuredDir === undefined) {
      dir = await mkdtemp(join(tmpdir(), 'vane-secrets-'));
      this.#ownsDir = true;
    } else {
      dir = this.#configuredDir;
      await mkdir(dir, { recursive: true, mode: 0o700 });
    }
    await chmod(dir, 0o700);
    this.#dir = dir;
    track(this);
    return dir;
  }

  /**
   * Brings the files in line with `secrets`: writes every file secret given
   * (atomically) and removes files of keys in `removed`. Call it before the
   * cache is swapped, so a path handed out always has its content.
   *
   * @param write - file secrets to (re)write.
   * @param removed - keys whose file must go (deleted, or no longer file secrets).
   */
  async apply(write: Iterable<[string, SecretRecord]>, removed: Iterable<string>): Promise<void> {
    if (this.#closed) return;
    for (const [key, secret] of write) {
      if (secret.type !== 'file') continue;
      const dir = await this.#ensureDir();
      const final = join(dir, secretFileName(key));
      const tmp = `${final}.tmp-${process.pid}-${++tmpCounter}`;
      try {
        await writeFile(tmp, secret.value, { mode: 0o600, flag: 'wx' });
        await rename(tmp, final);
      } catch (err) {
        await unlink(tmp).catch(() => undefined);
        // The file system error names the path, never the content.
        throw err;
      }
      this.#written.add(final);
    }
    if (this.#dir === undefined) return;
    for (const key of removed) {
      const path = join(this.#dir, secretFileName(key));
      if (this.#written.delete(path)) await unlink(path).catch(() => undefined);
    }
  }

  /** Removes every file written (and the directory if the store created it). Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    untrack(this);
    if (this.#dir === undefined) return;
    if (this.#ownsDir) await rm(this.#dir, { recursive: true, force: true });
    else for (const path of this.#written) await unlink(path).catch(() => undefined);
    this.#written.clear();
  }

  /** Synchronous best-effort removal, for the process `exit` hook. */
  removeAllSync(): void {
    const attempt = (remove: () => void): void => {
      try {
        remove();
      } catch {
        // Best effort at exit.
      }
    };
    if (this.#dir !== undefined && this.#ownsDir) attempt(() => rmSync(this.#dir!, { recursive: true, force: true }));
    else for (const path of this.#written) attempt(() => unlinkSync(path));
  }
}
