/**
 * A last-known-good store on the local disk: one file per service, in a
 * private directory.
 *
 * @packageDocumentation
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { InvalidArgumentError } from '../errors.js';
import type { LastKnownGoodStore } from './last-known-good-store.js';

/** Options of {@link FileBackupStore}. */
export interface FileBackupStoreOptions {
  /**
   * Directory of the backups. Created if absent and set to mode 0700 (it
   * holds one 0600 file per service). Put it on a volume that outlives the
   * process (a Kubernetes `emptyDir` survives container restarts, not a
   * rescheduled pod; use Redis for a fleet).
   */
  readonly directory: string;
}

/**
 * Keeps each service's backup in a file of its own, written atomically
 * (a 0600 temporary file, flushed to disk, then renamed over the old one),
 * so a crash mid-write leaves the previous backup whole.
 *
 * @example
 * ```ts
 * lastKnownGood: { store: new FileBackupStore({ directory: '/var/lib/shop/vane' }) }
 * ```
 */
export class FileBackupStore implements LastKnownGoodStore {
  /** The directory, as given. */
  readonly directory: string;
  #ready: Promise<void> | undefined;

  /** @throws InvalidArgumentError - when `directory` is not a non-empty string. */
  constructor(options: FileBackupStoreOptions) {
    if (typeof options !== 'object' || options === null || typeof options.directory !== 'string' || !options.directory)
      throw new InvalidArgumentError('FileBackupStore: directory must be a non-empty path');
    this.directory = options.directory;
  }

  /**
   * The file of a service: a readable part of its address and a hash of
   * all of it (two services never share a file, whatever their names).
   */
  pathFor(serviceId: string): string {
    const hash = createHash('sha256').update(serviceId).digest('hex').slice(0, 16);
    const readable = serviceId
      .replace(/^[a-z]+:\/\//i, '')
      .replace(/[^A-Za-z0-9.-]/g, '_')
      .slice(0, 80);
    return join(this.directory, `${readable}-${hash}.json`);
  }

  /** `file <path>`. */
  describe(serviceId: string): string {
    return `file ${this.pathFor(serviceId)}`;
  }

  /** The file's text, or `null` when there is no file. */
  async read(serviceId: string): Promise<string | null> {
    try {
      return await readFile(this.pathFor(serviceId), 'utf8');
    } catch (err) {
      if ((err as { code?: unknown }).code === 'ENOENT') return null;
      throw err;
    }
  }

  /** Replaces the file atomically; it is mode 0600 from its creation. */
  async write(serviceId: string, document: string): Promise<void> {
    await this.#ensureDirectory();
    const final = this.pathFor(serviceId);
    const tmp = `${final}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
    try {
      const handle = await open(tmp, 'wx', 0o600);
      try {
        await handle.writeFile(document, 'utf8');
        // Flushed before the rename: after a power cut the name points at a whole document.
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(tmp, final);
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
  }

  #ensureDirectory(): Promise<void> {
    this.#ready ??= (async () => {
      await mkdir(this.directory, { recursive: true, mode: 0o700 });
      await chmod(this.directory, 0o700);
    })().catch((err: unknown) => {
      this.#ready = undefined;
      throw err;
    });
    return this.#ready;
  }
}
