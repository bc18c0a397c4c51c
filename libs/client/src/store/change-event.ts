/**
 * Change events: what changed between two snapshots, only for values that
 * really changed.
 *
 * @packageDocumentation
 */
import { jsonEqual } from '@vane/common';
import { diffMaps } from '@vane/client-core';
import type { ConfigValue, SecretType, Snapshot } from '@vane/client-core';

/**
 * What a secret change event carries instead of the value: its type and
 * version. Values are never put in events, so logging an event cannot leak a
 * secret; read the new value with `client.secret(key)`.
 */
export interface SecretVersionInfo {
  /** `text` or `file`. */
  readonly type: SecretType;
  /** 1-based version number. */
  readonly version: number;
}

/** Fields shared by every change event. */
interface ChangeEventBase<K extends string, V> {
  /** What changed. */
  readonly kind: K;
  /** Key of the config, flag or secret. */
  readonly key: string;
  /** Value before the change; `undefined` when the key did not exist. */
  readonly oldValue: V | undefined;
  /** Value after the change; `undefined` when the key was deleted. */
  readonly newValue: V | undefined;
  /** Revision of the snapshot the change belongs to. */
  readonly revision: number;
}

/** A config was added, changed (by JSON value, arrays compared by content) or deleted. */
export type ConfigChangeEvent = ChangeEventBase<'config', ConfigValue>;
/** A flag appeared, disappeared, or its `is_active` value changed. */
export type FlagChangeEvent = ChangeEventBase<'flag', boolean>;
/** A secret was added, deleted, or its type, version or value changed. Carries no value. */
export type SecretChangeEvent = ChangeEventBase<'secret', SecretVersionInfo>;

/** Any change event, discriminated by `kind`. */
export type ChangeEvent = ConfigChangeEvent | FlagChangeEvent | SecretChangeEvent;

/** Listener given to `client.onChange`. Exceptions it throws are logged, never propagated. */
export type ChangeListener = (event: ChangeEvent) => void;

/** Tells `emit` each key of a group whose value changed, in `view`'s words. */
function diffGroup<T, V>(
  before: ReadonlyMap<string, T>,
  after: ReadonlyMap<string, T>,
  changed: (a: T, b: T) => boolean,
  view: (t: T) => V,
  emit: (key: string, oldValue: V | undefined, newValue: V | undefined) => void,
): void {
  diffMaps(
    before,
    after,
    (a, b) => !changed(a, b),
    (key, a, b) => emit(key, a === undefined ? undefined : view(a), b === undefined ? undefined : view(b)),
  );
}

/**
 * Lists the changes from `before` to `after`: configs, then flags, then
 * secrets; within a group, changed and deleted keys in `before`'s order, then
 * added keys. Unchanged values produce nothing.
 */
export function diffSnapshots(before: Snapshot, after: Snapshot): ChangeEvent[] {
  const events: ChangeEvent[] = [];
  const revision = after.revision;
  diffGroup(
    before.configs,
    after.configs,
    (a, b) => !jsonEqual(a, b),
    (v) => v,
    (key, oldValue, newValue) => events.push({ kind: 'config', key, oldValue, newValue, revision }),
  );
  diffGroup(
    before.flags,
    after.flags,
    (a, b) => a.isActive !== b.isActive,
    (f) => f.isActive,
    (key, oldValue, newValue) => events.push({ kind: 'flag', key, oldValue, newValue, revision }),
  );
  diffGroup(
    before.secrets,
    after.secrets,
    (a, b) => a.type !== b.type || a.version !== b.version || a.value !== b.value,
    (s): SecretVersionInfo => ({ type: s.type, version: s.version }),
    (key, oldValue, newValue) => events.push({ kind: 'secret', key, oldValue, newValue, revision }),
  );
  return events;
}
