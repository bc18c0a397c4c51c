/**
 * What a live resource reports: its status, and one event per rebuild,
 * failed rebuild and disposal. Never a value.
 *
 * @packageDocumentation
 */
import type { LiveResourceBuildError } from '../errors.js';

/**
 * Where a live resource stands: `ready` (the instance in service was built
 * from the latest values), `rebuilding` (a build runs), `failing` (the last
 * build failed; the previous instance serves and a retry is planned),
 * `closed`.
 */
export type LiveResourceState = 'ready' | 'rebuilding' | 'failing' | 'closed';

/** A live resource's status, for health checks. Holds no value. */
export interface LiveResourceStatus {
  /** See {@link LiveResourceState}. */
  readonly state: LiveResourceState;
  /** Number of the instance in service: 1 for the one built at startup, then one more per successful rebuild. */
  readonly generation: number;
  /** Snapshot revision of the values the instance in service was built from. */
  readonly revision: number;
  /** When the instance in service was swapped in, ms since the epoch on the client's clock. */
  readonly builtAtMs: number;
  /** Consecutive failed builds since the last success (0 when `ready`). */
  readonly failures: number;
  /** The error of the last failed build, until a build succeeds. */
  readonly lastError: LiveResourceBuildError | null;
  /** When the next retry is due (ms since the epoch), while one is planned. */
  readonly retryAtMs: number | null;
  /** Old instances waiting for their borrowers before they are disposed of. */
  readonly draining: number;
}

/** A new instance was built, passed its readiness check and is now in service. */
export interface LiveResourceRebuiltEvent {
  readonly type: 'rebuilt';
  /** Name of the resource. */
  readonly resource: string;
  /** Number of the new instance. */
  readonly generation: number;
  /** Snapshot revision of the values it was built from. */
  readonly revision: number;
  /** Keys whose change caused the rebuild (names only). */
  readonly keys: readonly string[];
  /** Time the build took (`create` plus `ready`), in milliseconds on the client's clock. */
  readonly durationMs: number;
}

/** A build failed; the instance in service stays. */
export interface LiveResourceRebuildFailedEvent {
  readonly type: 'rebuild-failed';
  /** Name of the resource. */
  readonly resource: string;
  /** Snapshot revision of the values the build read. */
  readonly revision: number;
  /** Keys whose change caused the attempt (names only). */
  readonly keys: readonly string[];
  /** Why: stage, and the sanitised cause (no secret value). */
  readonly error: LiveResourceBuildError;
  /** Consecutive failures, this one included. */
  readonly failures: number;
  /** Delay before the retry, in milliseconds (0: a newer change is built at once). */
  readonly retryInMs: number;
}

/** An old instance was disposed of (after a swap, or at close). */
export interface LiveResourceDisposedEvent {
  readonly type: 'disposed';
  /** Name of the resource. */
  readonly resource: string;
  /** Number of the instance disposed of. */
  readonly generation: number;
  /** False when borrowers were still running at the drain timeout. */
  readonly drained: boolean;
  /** What `dispose` threw, sanitised (name, code and a redacted message), if it failed. */
  readonly error?: Error;
}

/** Any event of a live resource, discriminated by `type`. */
export type LiveResourceEvent = LiveResourceRebuiltEvent | LiveResourceRebuildFailedEvent | LiveResourceDisposedEvent;

/** Listener given to `onEvent`. Called synchronously; what it throws is logged, never propagated. */
export type LiveResourceListener = (event: LiveResourceEvent) => void;
