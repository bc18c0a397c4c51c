/**
 * What a client holds and tells: the snapshot, the status, the listeners,
 * and the reads and subscriptions over them. The base of
 * `VaneBrowserClient`, which changes the state through the functions this
 * module hands it (the state's fields stay `#private`, so minified).
 *
 * @packageDocumentation
 */
import { diffMaps } from '@vane/client-core';
import type { ConfigValue, Snapshot } from '@vane/client-core';
import { jsonEqual } from '@vane/common';
import { PublicKeyRefusals } from './refusals.js';
import type { VaneListener, VaneStatus, VaneUpdate } from './types.js';

const NO_KEYS: readonly string[] = [];

/** The keys whose value differs between two groups of a snapshot (set, changed, or gone). */
function changedKeys<T>(
  before: ReadonlyMap<string, T> | undefined,
  after: ReadonlyMap<string, T>,
  same: (a: T, b: T) => boolean,
): string[] {
  const keys: string[] = [];
  diffMaps(before, after, same, (key) => keys.push(key));
  return keys;
}

/** The snapshot `state` holds, if any. @internal */
export let snapOf!: (state: VaneState) => Snapshot | undefined;
/** The ETag of the snapshot `state` holds, if known. @internal */
export let etagOf!: (state: VaneState) => string | null;
/** The status of `state` (as `state.status`, in fewer bytes). @internal */
export let statusOf!: (state: VaneState) => VaneStatus;
/** Takes a snapshot: the one place a snapshot enters (sync, patch, bootstrap, storage, a shared stream). @internal */
export let install!: (state: VaneState, next: Snapshot, etag: string | null, stale: boolean) => void;
/** Changes the status; one update when anything changed. @internal */
export let setStatus!: (state: VaneState, change: Partial<VaneStatus>) => void;
/** Tells the listeners that A/B answers changed. @internal */
export let abChanged!: (state: VaneState) => void;
/** Forgets every listener. @internal */
export let unsubscribeAll!: (state: VaneState) => void;

/**
 * A client's values and status, read synchronously, and its updates. Only
 * `VaneBrowserClient` extends it.
 */
export abstract class VaneState extends PublicKeyRefusals {
  readonly #listeners = new Set<VaneListener>();
  #snap: Snapshot | undefined;
  #etag: string | null = null;
  #status: VaneStatus = { ready: false, connected: false, stale: false, revision: 0, mode: 'idle' };
  #version = 0;

  static {
    snapOf = (state) => state.#snap;
    etagOf = (state) => state.#etag;
    statusOf = (state) => state.#status;
    install = (state, next, etag, stale) => {
      const before = state.#snap;
      // Secrets are never in `next`: the public parsers (sync, patch, bootstrap) read none.
      state.#snap = next;
      state.#etag = etag;
      state.#status = {
        ...state.#status,
        ready: true,
        stale,
        revision: next.revision,
        error: stale ? state.#status.error : undefined,
      };
      state.#emit(
        changedKeys(before?.configs, next.configs, jsonEqual),
        changedKeys(before?.flags, next.flags, (a, b) => a.isActive === b.isActive),
        false,
        true,
      );
    };
    setStatus = (state, change) => {
      const before = state.#status;
      const next = { ...before, ...change };
      if ((Object.keys(next) as (keyof VaneStatus)[]).every((k) => next[k] === before[k])) return;
      state.#status = next;
      state.#emit(NO_KEYS, NO_KEYS, false, true);
    };
    abChanged = (state) => state.#emit(NO_KEYS, NO_KEYS, true, false);
    unsubscribeAll = (state) => state.#listeners.clear();
  }

  /** The client's state; a new object on every change. */
  get status(): VaneStatus {
    return this.#status;
  }

  /** Grows by one on every update (a cheap "anything changed?" for external stores). */
  get version(): number {
    return this.#version;
  }

  /**
   * A config's value.
   *
   * @returns the value, `defaultValue` when the config is absent.
   */
  config<T extends ConfigValue = ConfigValue>(key: string): T | undefined;
  config<T extends ConfigValue>(key: string, defaultValue: T): T;
  config(key: string, defaultValue?: ConfigValue): ConfigValue | undefined {
    const configs = this.#snap?.configs;
    return configs?.has(key) ? configs.get(key) : defaultValue;
  }

  /** A flag's `is_active`, as the service computed it; `defaultValue` when the flag is absent. */
  flag(key: string, defaultValue = false): boolean {
    return this.#snap?.flags.get(key)?.isActive ?? defaultValue;
  }

  /** The keys held. */
  keys(): { configs: string[]; flags: string[] } {
    return { configs: [...(this.#snap?.configs.keys() ?? [])], flags: [...(this.#snap?.flags.keys() ?? [])] };
  }

  /**
   * Calls `listener` once per change: each new revision (with the keys
   * that changed), A/B answers, status.
   *
   * @returns a function that removes the listener.
   */
  subscribe(listener: VaneListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Calls `listener` when the flag's value changes, with the new and the old value. */
  onFlag(key: string, listener: (newValue: boolean, oldValue: boolean) => void): () => void {
    return this.#watch('flags', key, () => this.flag(key), listener);
  }

  /** Calls `listener` when the config's value changes, with the new and the old value (`undefined` when absent). */
  onConfig(
    key: string,
    listener: (newValue: ConfigValue | undefined, oldValue: ConfigValue | undefined) => void,
  ): () => void {
    return this.#watch('configs', key, () => this.config(key), listener);
  }

  /** Calls `listener` with the new and the old value when an update names `key` and the value changed. */
  #watch<T>(group: 'flags' | 'configs', key: string, read: () => T, listener: (newValue: T, oldValue: T) => void) {
    let last = read();
    return this.subscribe((update) => {
      const old = last;
      if (update[group].includes(key) && (last = read()) !== old) listener(last, old);
    });
  }

  #emit(configs: readonly string[], flags: readonly string[], ab: boolean, status: boolean): void {
    this.#version++;
    const update: VaneUpdate = { revision: this.#status.revision, configs, flags, ab, status };
    for (const listener of [...this.#listeners]) {
      try {
        listener(update);
      } catch {
        // A listener's failure is its own: the others still hear of the change.
      }
    }
  }
}
