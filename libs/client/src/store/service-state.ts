/**
 * The client's state: what it serves from one snapshot, the snapshot and
 * everything derived from it, built together and swapped together.
 *
 * @packageDocumentation
 */
import type { Snapshot } from '@vane/client-core';

/**
 * The client's state, derived from one snapshot (parsed, validated,
 * indexed): what every read answers from. Immutable: a state handed out (to a
 * pinned request, a backup writer, a listener) keeps answering from its own
 * snapshot whatever is swapped in later.
 */
export interface ServiceState {
  /** The snapshot readers are served (with a schema, configs are the validators' outputs). */
  readonly snapshot: Snapshot;
  /** The snapshot as the service sent it: the base of the next patch, and what a backup keeps. */
  readonly raw: Snapshot;
  /**
   * Every flag's `is_active` by key, so a flag read is one `Map.get` of a
   * boolean, like a config read (reading through the flag's record costs a
   * second dependent load per read).
   */
  readonly flagValues: ReadonlyMap<string, boolean>;
}

/**
 * Builds the state served for `snapshot`: the one place derived data is
 * made, so no way of installing a snapshot (sync, patch, backup) can forget
 * part of it. Derived maps of a group the snapshot shares with `previous`
 * are shared too.
 */
export function serviceState(snapshot: Snapshot, raw: Snapshot, previous?: ServiceState): ServiceState {
  const flagValues =
    previous !== undefined && previous.snapshot.flags === snapshot.flags ? previous.flagValues : flagValuesOf(snapshot);
  return Object.freeze({ snapshot, raw, flagValues });
}

function flagValuesOf(snapshot: Snapshot): ReadonlyMap<string, boolean> {
  const values = new Map<string, boolean>();
  for (const [key, flag] of snapshot.flags) values.set(key, flag.isActive);
  return values;
}
