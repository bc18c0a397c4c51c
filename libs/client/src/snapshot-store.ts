/**
 * The snapshot store: holds the snapshot the client serves, swaps it whole,
 * and tells the app what changed.
 *
 * @packageDocumentation
 */
import { diffSnapshots, type ChangeEvent, type ChangeListener } from './change-event.js';
import { SecretFileWriteError } from './errors.js';
import type { FileSecretStore } from './file-secrets.js';
import { ListenerSet } from './listener-set.js';
import type { VaneLogger } from './logger.js';
import { sanitizeCause } from './redact.js';
import { EMPTY_SNAPSHOT, type SecretRecord, type Snapshot } from './snapshot.js';
import type { Clock } from './timers.js';

/** Where a snapshot given to {@link SnapshotStore.apply} came from. */
export type SnapshotOrigin = 'sync' | 'patch';

/** A snapshot the store has just installed, as {@link SnapshotStore.onApplied} hooks receive it. */
export interface AppliedSnapshot {
  /** The snapshot now served. */
  readonly snapshot: Snapshot;
  /** The one it replaced ({@link EMPTY_SNAPSHOT} for the first). */
  readonly previous: Snapshot;
  /** A full sync (`200 /v1/sync`) or a stream patch. */
  readonly origin: SnapshotOrigin;
  /** The sync's ETag (for a patch, the last sync's). */
  readonly etag: string | undefined;
}

/**
 * Holds the current snapshot. Every update, from a sync or from a patch,
 * goes through {@link SnapshotStore.apply}: file secrets are written first,
 * then the snapshot is swapped in one assignment, then change listeners and
 * `onApplied` hooks run. Readers therefore never see half an update, and a
 * path handed out for a file secret always has its content.
 */
export class SnapshotStore {
  #snapshot: Snapshot = EMPTY_SNAPSHOT;
  #etag: string | undefined;
  #confirmedAtMs: number | undefined;
  #closed = false;
  readonly #changes: ListenerSet<ChangeEvent>;
  readonly #applied: ListenerSet<AppliedSnapshot>;

  /**
   * @param files - where file secrets are materialised.
   * @param clock - stamps {@link SnapshotStore.confirmedAtMs}.
   * @param logger - where failing listeners are reported.
   */
  constructor(
    private readonly files: FileSecretStore,
    private readonly clock: Clock,
    logger: VaneLogger,
  ) {
    this.#changes = new ListenerSet(logger, (e) => `change listener threw on ${e.kind} "${e.key}"`);
    this.#applied = new ListenerSet(logger, (a) => `snapshot hook threw on revision ${a.snapshot.revision}`);
  }

  /** The snapshot served now ({@link EMPTY_SNAPSHOT} before the first sync). */
  get snapshot(): Snapshot {
    return this.#snapshot;
  }

  /** ETag of the last `200 /v1/sync`, sent as `If-None-Match`. */
  get etag(): string | undefined {
    return this.#etag;
  }

  /** When the snapshot was last confirmed current (applied, or a 304), in ms since the epoch. */
  get confirmedAtMs(): number | undefined {
    return this.#confirmedAtMs;
  }

  /** Subscribes to value changes (not called for the first snapshot). @returns a function that unsubscribes. */
  onChange(listener: ChangeListener): () => void {
    return this.#changes.add(listener, 'onChange');
  }

  /**
   * Subscribes a hook called after every installed snapshot, the first one
   * included (e.g. to keep a copy on disk). Called after the change listeners.
   *
   * @returns a function that unsubscribes.
   */
  onApplied(hook: (applied: AppliedSnapshot) => void): () => void {
    return this.#applied.add(hook, 'onApplied');
  }

  /**
   * Installs `next`: writes its file secrets, swaps it in, stamps the
   * confirmation time, and notifies. The single path of every update.
   *
   * @param etag - the ETag of the sync that carried `next`; ignored for a patch.
   * @returns false when the store was closed meanwhile (nothing installed).
   * @throws SecretFileWriteError - a file secret could not be written (nothing installed).
   */
  async apply(next: Snapshot, origin: SnapshotOrigin, etag?: string): Promise<boolean> {
    if (this.#closed) return false;
    const previous = this.#snapshot;
    // A sync rewrites every file (one removed behind the client's back comes back); a patch only what it changed.
    const write = [...next.secrets].filter(([key, s]) => origin === 'sync' || previous.secrets.get(key) !== s);
    const removed = [...previous.secrets]
      .filter(([key, s]) => s.type === 'file' && next.secrets.get(key)?.type !== 'file')
      .map(([key]) => key);
    await this.#writeFiles(write, removed);
    if (this.#closed) return false;
    this.#snapshot = next;
    if (origin === 'sync') this.#etag = etag;
    this.#confirmedAtMs = this.clock.now();
    if (previous !== EMPTY_SNAPSHOT && this.#changes.size > 0)
      for (const event of diffSnapshots(previous, next)) this.#changes.emit(event);
    this.#applied.emit({ snapshot: next, previous, origin, etag: this.#etag });
    return true;
  }

  /**
   * Records a `304`: the snapshot is current. File secrets are rewritten from
   * memory (a tmp cleaner may have removed one), nothing is parsed.
   *
   * @throws SecretFileWriteError
   */
  async confirm(etag: string | undefined): Promise<void> {
    if (this.#closed) return;
    await this.#writeFiles(this.#snapshot.secrets, []);
    if (etag !== undefined) this.#etag = etag;
    this.#confirmedAtMs = this.clock.now();
  }

  /** Path of a file secret's file; `undefined` when absent, not a file, or closed. */
  filePath(key: string): string | undefined {
    if (this.#closed || this.#snapshot.secrets.get(key)?.type !== 'file') return undefined;
    return this.files.pathFor(key);
  }

  /** Stops updates and listeners, and removes the file secrets. Reads keep the last snapshot. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#changes.clear();
    this.#applied.clear();
    await this.files.close();
  }

  /** Stops updates and listeners at once (the files go with {@link SnapshotStore.close}). */
  stop(): void {
    this.#closed = true;
    this.#changes.clear();
    this.#applied.clear();
  }

  async #writeFiles(write: Iterable<[string, SecretRecord]>, removed: Iterable<string>): Promise<void> {
    try {
      await this.files.apply(write, removed);
    } catch (err) {
      // A refused directory: its error already names the directory and the reason.
      if (err instanceof SecretFileWriteError) throw err;
      const code = (err as { code?: unknown }).code;
      throw new SecretFileWriteError(
        `cannot write file secrets in ${this.files.directory ?? 'the secrets directory'}${typeof code === 'string' ? ` (${code})` : ''}`,
        { cause: sanitizeCause(err) },
      );
    }
  }
}
