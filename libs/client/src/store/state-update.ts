/**
 * The update event: one per revision the client installs, with every change in it.
 *
 * @packageDocumentation
 */
import type { ChangeEvent } from './change-event.js';

/** Where the snapshot of an installed state came from: a full sync or a stream patch. */
export type UpdateOrigin = 'sync' | 'patch';

/**
 * One installed revision: emitted once per applied sync or patch whose
 * revision moved or whose values changed, after the swap. Per-value change
 * listeners (`onChange`) are derived from it, so everything that follows the
 * client (observables, OpenFeature, request pinning, live resources,
 * telemetry) sees the same revisions in the same order.
 */
export interface StateUpdate {
  /** The revision now served. */
  readonly revision: number;
  /** The revision served before. */
  readonly previousRevision: number;
  /** A full sync (`200 /v1/sync`) or a stream patch. */
  readonly origin: UpdateOrigin;
  /**
   * Every value that changed, configs then flags then secrets (secret
   * changes carry type and version, never the value). Empty when only the
   * revision moved (e.g. an A/B rule changed: answers keyed by revision must
   * be dropped, though no value a reader sees changed).
   */
  readonly changes: readonly ChangeEvent[];
  /** When the service committed the change (a patch's `committed_at`), ms since the epoch; absent otherwise. */
  readonly committedAtMs?: number;
  /** When this client installed it, on the client's clock, ms since the epoch. */
  readonly appliedAtMs: number;
}

/** Listener given to `client.onUpdate`. Exceptions it throws are logged, never propagated. */
export type UpdateListener = (update: StateUpdate) => void;
