/**
 * The snapshot store: holds the snapshot the client serves, swaps it whole,
 * and tells the app what changed.
 *
 * @packageDocumentation
 */
import { diffSnapshots, type ChangeEvent, type ChangeListener } from './change-event.js';
import { SecretFileWriteError } from '../errors.js';
import type { FileSecretStore } from '../secrets/file-secrets.js';
import { ListenerSet } from './listener-set.js';
import type { VaneLogger } from '../util/logger.js';
import { sanitizeCause } from '../util/redact.js';
import { EMPTY_SNAPSHOT, type ConfigValue, type SecretRecord, type Snapshot } from './snapshot.js';
import type { Clock } from '../util/timers.js';
import type { InvalidConfig } from '../schema/invalid-config.js';
import type { SchemaValidator } from '../schema/schema-validator.js';

const NO_INVALID: ReadonlyMap<string, InvalidConfig> = new Map();

/** Where a snapshot given to {@link SnapshotStore.apply} came from. */
export type SnapshotOrigin = 'sync' | 'patch';

/** A snapshot the store has just installed, as {@link SnapshotStore.onApplied} hooks receive it. */
export interface AppliedSnapshot {
  /**
   * The snapshot as the service sent it (what a backup must keep). With a
   * schema, readers are served validated outputs instead: see {@link SnapshotStore.snapshot}.
   */
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
  /** The snapshot as the service sent it: the base of the next patch. The same object as `#snapshot` without a schema. */
  #raw: Snapshot = EMPTY_SNAPSHOT;
  #flagValues: ReadonlyMap<string, boolean> = new Map();
  #etag: string | undefined;
  #confirmedAtMs: number | undefined;
  #closed = false;
  readonly #changes: ListenerSet<ChangeEvent>;
  readonly #applied: ListenerSet<AppliedSnapshot>;
  readonly #invalid: ListenerSet<InvalidConfig>;

  /**
   * @param files - where file secrets are materialised.
   * @param clock - stamps {@link SnapshotStore.confirmedAtMs}.
   * @param logger - where failing listeners and invalid configs are reported.
   * @param validator - the app's schema: every update is checked before it is swapped in.
   */
  constructor(
    private readonly files: FileSecretStore,
    private readonly clock: Clock,
    private readonly logger: VaneLogger,
    private readonly validator?: SchemaValidator,
  ) {
    this.#changes = new ListenerSet(logger, (e) => `change listener threw on ${e.kind} "${e.key}"`);
    this.#applied = new ListenerSet(logger, (a) => `snapshot hook threw on revision ${a.snapshot.revision}`);
    this.#invalid = new ListenerSet(logger, (i) => `invalid-config listener threw on "${i.key}"`);
  }

  /**
   * The snapshot served now ({@link EMPTY_SNAPSHOT} before the first sync).
   * With a schema, its configs are the validators' outputs, and a key whose
   * latest value failed keeps its last valid one.
   */
  get snapshot(): Snapshot {
    return this.#snapshot;
  }

  /** The snapshot as the service sent it, before validation: the base of the next patch. */
  get raw(): Snapshot {
    return this.#raw;
  }

  /** Config keys whose current value failed the schema, with the issues (empty without a schema). */
  get invalid(): ReadonlyMap<string, InvalidConfig> {
    return this.validator?.invalid ?? NO_INVALID;
  }

  /** Subscribes to configs that fail the schema (once per key and bad value). @returns a function that unsubscribes. */
  onInvalid(listener: (invalid: InvalidConfig) => void): () => void {
    return this.#invalid.add(listener, 'onInvalid');
  }

  /**
   * Every flag's `is_active`, by key: derived from the snapshot when it is
   * swapped, so a flag read is one `Map.get` of a boolean, like a config read
   * (reading through the flag's record costs a second dependent load per read).
   */
  get flagValues(): ReadonlyMap<string, boolean> {
    return this.#flagValues;
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
    const raw = next;
    const validated = this.#validate(next);
    next = validated.snapshot;
    const previous = this.#snapshot;
    // A sync rewrites every file (one removed behind the client's back comes back); a patch only what it changed.
    const write = [...next.secrets].filter(([key, s]) => origin === 'sync' || previous.secrets.get(key) !== s);
    const removed = [...previous.secrets]
      .filter(([key, s]) => s.type === 'file' && next.secrets.get(key)?.type !== 'file')
      .map(([key]) => key);
    await this.#writeFiles(write, removed);
    if (this.#closed) return false;
    this.#swap(next, raw);
    if (origin === 'sync') this.#etag = etag;
    this.#confirmedAtMs = this.clock.now();
    if (previous !== EMPTY_SNAPSHOT && this.#changes.size > 0)
      for (const event of diffSnapshots(previous, next)) this.#changes.emit(event);
    this.#reportValidation(validated.invalid, validated.recovered);
    this.#applied.emit({ snapshot: raw, previous, origin, etag: this.#etag });
    return true;
  }

  /**
   * Serves a snapshot restored from a last-known-good backup, before any
   * from the service: its file secrets are written, then it is installed
   * with no ETag (the next sync downloads in full), stamped with the time of
   * the backup's save, with no change event and no `onApplied` hook (a
   * backup is never saved back as if it were fresh).
   * With a schema, a backup that breaks it fails like a first snapshot would.
   *
   * @param confirmedAtMs - when the backup was saved.
   * @returns false when the service's snapshot came first, or the store closed (nothing installed).
   * @throws SecretFileWriteError
   */
  async restore(backup: Snapshot, confirmedAtMs: number): Promise<boolean> {
    if (this.#closed || this.#snapshot !== EMPTY_SNAPSHOT) return false;
    // With a schema, a backup is checked like a first snapshot (it was saved as the service sent it).
    const served = this.#validate(backup).snapshot;
    await this.#writeFiles(served.secrets, []);
    if (this.#closed) return false;
    if (this.#snapshot !== EMPTY_SNAPSHOT) {
      // The service answered while the backup's files were written: its files win.
      await this.#writeFiles(this.#snapshot.secrets, []);
      return false;
    }
    this.#snapshot = served;
    this.#raw = backup;
    this.#confirmedAtMs = confirmedAtMs;
    return true;
  }

  /**
   * Checks `raw` against the schema. The first snapshot must satisfy it whole
   * (a `ConfigInvalidError` fails the start); later ones keep each failing
   * key's last valid value and apply the rest.
   */
  #validate(raw: Snapshot): { snapshot: Snapshot; invalid: readonly InvalidConfig[]; recovered: readonly string[] } {
    if (this.validator === undefined) return { snapshot: raw, invalid: [], recovered: [] };
    if (this.#raw === EMPTY_SNAPSHOT) {
      const configs = this.validator.initial(raw.configs, raw.revision);
      return { snapshot: { ...raw, configs: configs as ReadonlyMap<string, ConfigValue> }, invalid: [], recovered: [] };
    }
    const result = this.validator.update(raw.configs, raw.revision);
    const snapshot = { ...raw, configs: result.configs as ReadonlyMap<string, ConfigValue> };
    return { snapshot, invalid: result.invalid, recovered: result.recovered };
  }

  #reportValidation(invalid: readonly InvalidConfig[], recovered: readonly string[]): void {
    for (const entry of invalid) {
      this.logger.warn(
        `config "${entry.key}" at revision ${entry.revision} fails the schema; ${
          entry.keptLastValid ? 'readers keep its last valid value' : 'readers see it as missing'
        }: ${entry.issues.join('; ')}`,
      );
      this.#invalid.emit(entry);
    }
    for (const key of recovered) this.logger.info?.(`config "${key}" is valid again`);
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
    this.#invalid.clear();
    await this.files.close();
  }

  /** Stops updates and listeners at once (the files go with {@link SnapshotStore.close}). */
  stop(): void {
    this.#closed = true;
    this.#changes.clear();
    this.#applied.clear();
    this.#invalid.clear();
  }

  /** Serves `next` (and what is derived from it; `raw` is the base of the next patch) from now on: the only assignment of the snapshot. */
  #swap(next: Snapshot, raw: Snapshot): void {
    if (next.flags !== this.#snapshot.flags) this.#flagValues = flagValuesOf(next);
    this.#snapshot = next;
    this.#raw = raw;
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

function flagValuesOf(snapshot: Snapshot): ReadonlyMap<string, boolean> {
  const values = new Map<string, boolean>();
  for (const [key, flag] of snapshot.flags) values.set(key, flag.isActive);
  return values;
}
