/**
 * The state store: holds the state the client serves (derived from the last
 * snapshot the service sent), swaps it whole, and tells the app what changed.
 *
 * @packageDocumentation
 */
import { diffSnapshots, type ChangeEvent, type ChangeListener } from './change-event.js';
import { InvalidArgumentError, SecretFileWriteError } from '../errors.js';
import type { FileSecretStore } from '../secrets/file-secrets.js';
import { callIsolated, ListenerSet } from './listener-set.js';
import type { VaneLogger } from '../util/logger.js';
import { sanitizeCause } from '../util/redact.js';
import { EMPTY_SNAPSHOT, type ConfigValue, type CachedSecret, type Snapshot } from '@vane/client-core';
import { serviceState, type ServiceState } from './service-state.js';
import type { UpdateOrigin, StateUpdate, UpdateListener } from './state-update.js';
import type { Clock } from '../util/timers.js';
import type { InvalidConfig } from '../schema/invalid-config.js';
import type { SchemaValidator } from '../schema/schema-validator.js';

const NO_INVALID: ReadonlyMap<string, InvalidConfig> = new Map();
const EMPTY_STATE: ServiceState = serviceState(EMPTY_SNAPSHOT, EMPTY_SNAPSHOT);

export type { UpdateOrigin, StateUpdate, UpdateListener } from './state-update.js';

/** A snapshot the store has just installed, as {@link StateStore.onApplied} hooks receive it. */
export interface AppliedSnapshot {
  /**
   * The snapshot as the service sent it (what a backup must keep). With a
   * schema, readers are served validated outputs instead: see {@link StateStore.state}.
   */
  readonly snapshot: Snapshot;
  /** The one it replaced ({@link EMPTY_SNAPSHOT} for the first). */
  readonly previous: Snapshot;
  /** A full sync (`200 /v1/sync`) or a stream patch. */
  readonly origin: UpdateOrigin;
  /** The sync's ETag (for a patch, the last sync's). */
  readonly etag: string | undefined;
}

/** What came with a snapshot given to {@link StateStore.apply}. */
export interface ApplyMeta {
  /** The ETag of the sync that carried it (ignored for a patch). */
  readonly etag?: string;
  /** A patch's `committed_at`, ms since the epoch. */
  readonly committedAtMs?: number;
}

/**
 * Told of every state replaced by the swap; returns true to keep its file
 * secrets' version files (a pinned scope still reads it), and then calls
 * {@link StateStore.releaseFiles} once nothing does.
 */
export type StateRetainer = (previous: ServiceState) => boolean;

/**
 * Holds the served {@link ServiceState}. Every snapshot, from a sync, a
 * patch or a last-known-good backup, becomes a state through
 * {@link serviceState} and is installed by one assignment in `#install`:
 * file secrets are written first, then the state is swapped, then one
 * {@link StateUpdate} is emitted (per-value change listeners are derived
 * from it), then `onApplied` hooks run. Readers therefore never see half an
 * update, a state cannot lag its snapshot, and a path handed out for a
 * file secret always has its content.
 */
export class StateStore {
  #state: ServiceState = EMPTY_STATE;
  #etag: string | undefined;
  #confirmedAtMs: number | undefined;
  #closed = false;
  readonly #updates: ListenerSet<StateUpdate>;
  readonly #applied: ListenerSet<AppliedSnapshot>;
  readonly #invalid: ListenerSet<InvalidConfig>;
  #retainer: StateRetainer | undefined;

  /**
   * @param files - where file secrets are materialised.
   * @param clock - stamps {@link StateStore.confirmedAtMs}.
   * @param logger - where failing listeners and invalid configs are reported.
   * @param validator - the app's schema: every update is checked before it is swapped in.
   */
  constructor(
    private readonly files: FileSecretStore,
    private readonly clock: Clock,
    private readonly logger: VaneLogger,
    private readonly validator?: SchemaValidator,
  ) {
    this.#updates = new ListenerSet(logger, (u) => `update listener threw on revision ${u.revision}`);
    this.#applied = new ListenerSet(logger, (a) => `snapshot hook threw on revision ${a.snapshot.revision}`);
    this.#invalid = new ListenerSet(logger, (i) => `invalid-config listener threw on "${i.key}"`);
  }

  /**
   * The state served now: the snapshot (with a schema, configs are the
   * validators' outputs, and a key whose latest value failed keeps its last
   * valid one), the raw snapshot, and derived maps. Empty before the first
   * snapshot. Immutable: hold on to it to keep reading one revision.
   */
  get state(): ServiceState {
    return this.#state;
  }

  /** The snapshot served now (`state.snapshot`). */
  get snapshot(): Snapshot {
    return this.#state.snapshot;
  }

  /** The snapshot as the service sent it, before validation: the base of the next patch. */
  get raw(): Snapshot {
    return this.#state.raw;
  }

  /**
   * Who is told of each replaced state (the client's revision pins): the
   * version files of a state it keeps stay until it calls
   * {@link StateStore.releaseFiles}. Without one, a replaced state's go at once.
   */
  retainReplaced(retainer: StateRetainer): void {
    this.#retainer = retainer;
  }

  /** Releases the version files of a replaced state the retainer kept. */
  releaseFiles(state: ServiceState): void {
    this.files.release(state.snapshot.secrets);
  }

  /** Whether `state` has file secrets, hence version files that {@link StateStore.releaseFiles} must let go of. */
  hasFiles(state: ServiceState): boolean {
    for (const secret of state.snapshot.secrets.values()) if (secret.type === 'file') return true;
    return false;
  }

  /** Config keys whose current value failed the schema, with the issues (empty without a schema). */
  get invalid(): ReadonlyMap<string, InvalidConfig> {
    return this.validator?.invalid ?? NO_INVALID;
  }

  /** Subscribes to configs that fail the schema (once per key and bad value). @returns a function that unsubscribes. */
  onInvalid(listener: (invalid: InvalidConfig) => void): () => void {
    return this.#invalid.add(listener, 'onInvalid');
  }

  /** ETag of the last `200 /v1/sync`, sent as `If-None-Match`. */
  get etag(): string | undefined {
    return this.#etag;
  }

  /** When the snapshot was last confirmed current (applied, or a 304), in ms since the epoch. */
  get confirmedAtMs(): number | undefined {
    return this.#confirmedAtMs;
  }

  /**
   * Subscribes to installed revisions: one {@link StateUpdate} per
   * applied sync or patch that moved the revision or changed a value (not
   * for the first snapshot, nor for a restored backup).
   *
   * @returns a function that unsubscribes.
   */
  onUpdate(listener: UpdateListener): () => void {
    return this.#updates.add(listener, 'onUpdate');
  }

  /**
   * Subscribes to value changes: derived from {@link StateStore.onUpdate},
   * called once per change of each update, each call isolated (a throw is
   * logged and the next change still arrives).
   *
   * @returns a function that unsubscribes.
   */
  onChange(listener: ChangeListener): () => void {
    if (typeof listener !== 'function') throw new InvalidArgumentError('onChange: listener must be a function');
    const failure = (event: ChangeEvent): string => `change listener threw on ${event.kind} "${event.key}"`;
    return this.#updates.add((update) => {
      for (const event of update.changes) callIsolated(listener, event, this.logger, failure);
    }, 'onChange');
  }

  /**
   * Subscribes a hook called after every installed snapshot from the
   * service, the first one included (e.g. to keep a copy on disk). Called
   * after the update listeners.
   *
   * @returns a function that unsubscribes.
   */
  onApplied(hook: (applied: AppliedSnapshot) => void): () => void {
    return this.#applied.add(hook, 'onApplied');
  }

  /**
   * Installs `next` from the service: validates it, writes its file
   * secrets, swaps it in, stamps the confirmation time, and notifies.
   *
   * @returns false when the store was closed meanwhile (nothing installed).
   * @throws SecretFileWriteError - a file secret could not be written (nothing installed).
   */
  async apply(next: Snapshot, origin: UpdateOrigin, meta: ApplyMeta = {}): Promise<boolean> {
    if (this.#closed) return false;
    const validated = this.#validate(next);
    const served = validated.snapshot;
    const previous = this.#state;
    // A sync rewrites every file (one removed behind the client's back comes back); a patch only what it changed.
    const write = [...served.secrets].filter(
      ([key, s]) => origin === 'sync' || previous.snapshot.secrets.get(key) !== s,
    );
    const removed = [...previous.snapshot.secrets]
      .filter(([key, s]) => s.type === 'file' && served.secrets.get(key)?.type !== 'file')
      .map(([key]) => key);
    // Held before they are written, so the version files a pinned read of this state is given exist.
    this.files.hold(served.secrets);
    try {
      await this.#writeFiles(write, removed);
    } catch (err) {
      this.files.release(served.secrets);
      throw err;
    }
    if (this.#closed) return false;
    const appliedAtMs = this.clock.now();
    this.#install(serviceState(served, next, previous), appliedAtMs);
    if (origin === 'sync') this.#etag = meta.etag;
    if (previous !== EMPTY_STATE) this.#emitUpdate(previous, origin, appliedAtMs, meta.committedAtMs);
    this.#reportValidation(validated.invalid, validated.recovered);
    this.#applied.emit({ snapshot: next, previous: previous.raw, origin, etag: this.#etag });
    return true;
  }

  /**
   * Serves a snapshot restored from a last-known-good backup, before any
   * from the service: validated like a first snapshot, its file secrets
   * written, then installed through the same swap as every other snapshot,
   * with no ETag (the next sync downloads in full), stamped with the time of
   * the backup's save, with no update event and no `onApplied` hook (a
   * backup is never saved back as if it were fresh).
   *
   * @param confirmedAtMs - when the backup was saved.
   * @returns false when the service's snapshot came first, or the store closed (nothing installed).
   * @throws SecretFileWriteError; ConfigInvalidError - the backup breaks the schema.
   */
  async restore(backup: Snapshot, confirmedAtMs: number): Promise<boolean> {
    if (this.#closed || this.#state !== EMPTY_STATE) return false;
    const served = this.#validate(backup).snapshot;
    this.files.hold(served.secrets);
    try {
      await this.#writeFiles(served.secrets, []);
    } catch (err) {
      this.files.release(served.secrets);
      throw err;
    }
    if (this.#closed) return false;
    if (this.#state !== EMPTY_STATE) {
      // The service answered while the backup's files were written: its files win.
      this.files.release(served.secrets);
      await this.#writeFiles(this.#state.snapshot.secrets, []);
      return false;
    }
    this.#install(serviceState(served, backup), confirmedAtMs);
    return true;
  }

  /**
   * Checks `raw` against the schema. The first snapshot must satisfy it whole
   * (a `ConfigInvalidError` fails the start); later ones keep each failing
   * key's last valid value and apply the rest.
   */
  #validate(raw: Snapshot): { snapshot: Snapshot; invalid: readonly InvalidConfig[]; recovered: readonly string[] } {
    if (this.validator === undefined) return { snapshot: raw, invalid: [], recovered: [] };
    if (this.#state.raw === EMPTY_SNAPSHOT) {
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
    await this.#writeFiles(this.#state.snapshot.secrets, []);
    if (etag !== undefined) this.#etag = etag;
    this.#confirmedAtMs = this.clock.now();
  }

  /** Path of a file secret's file; `undefined` when absent, not a file, or closed. */
  filePath(key: string): string | undefined {
    if (this.#closed || this.#state.snapshot.secrets.get(key)?.type !== 'file') return undefined;
    return this.files.pathFor(key);
  }

  /**
   * Path of the file of the version `state` holds of a file secret, whose
   * content never changes: `undefined` when absent, not a file, or closed.
   * It exists while `state` is served or kept by the retainer.
   */
  versionFilePath(state: ServiceState, key: string): string | undefined {
    const secret = state.snapshot.secrets.get(key);
    if (this.#closed || secret?.type !== 'file') return undefined;
    return this.files.versionPathFor(key, secret.version);
  }

  /** Versions of file secrets that have a file of their own now (held by the served state or pinned ones). @internal */
  get heldFileVersions(): number {
    return this.files.heldVersions;
  }

  /** Stops updates and listeners, and removes the file secrets. Reads keep the last snapshot. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#updates.clear();
    this.#applied.clear();
    this.#invalid.clear();
    await this.files.close();
  }

  /** Stops updates and listeners at once (the files go with {@link StateStore.close}). */
  stop(): void {
    this.#closed = true;
    this.#updates.clear();
    this.#applied.clear();
    this.#invalid.clear();
  }

  /**
   * Serves `state` from now on: the only assignment of the served state.
   * The state replaced keeps its version files while the retainer keeps it.
   */
  #install(state: ServiceState, confirmedAtMs: number): void {
    const previous = this.#state;
    this.#state = state;
    this.#confirmedAtMs = confirmedAtMs;
    if (this.#retainer?.(previous) !== true) this.files.release(previous.snapshot.secrets);
  }

  #emitUpdate(previous: ServiceState, origin: UpdateOrigin, appliedAtMs: number, committedAtMs?: number): void {
    const current = this.#state;
    if (this.#updates.size === 0) return;
    const changes = diffSnapshots(previous.snapshot, current.snapshot);
    if (changes.length === 0 && current.snapshot.revision === previous.snapshot.revision) return;
    this.#updates.emit(
      Object.freeze({
        revision: current.snapshot.revision,
        previousRevision: previous.snapshot.revision,
        origin,
        changes: Object.freeze(changes),
        appliedAtMs,
        ...(committedAtMs !== undefined && { committedAtMs }),
      }),
    );
  }

  async #writeFiles(write: Iterable<[string, CachedSecret]>, removed: Iterable<string>): Promise<void> {
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
