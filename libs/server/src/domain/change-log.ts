import type { StateChange } from './state-change.js';
import type { ServiceData } from './model.js';
import type { CommittedRevision } from './store.js';

/** A service as last committed, with which of its flags were active then. */
export interface CommittedService {
  readonly service: ServiceData;
  readonly published: ReadonlyMap<string, boolean>;
}

/** A write to run against the store's latest committed state. */
export interface StoreWrite<T> {
  /** The services the write may touch (`'all'` for the tenant's settings), so a failed commit can be undone. */
  readonly slugs: readonly string[] | 'all';
  /** Calls the store; throws what the store throws (a validation or not-found error). */
  run(): T;
}

/**
 * Change stage 3: where the store's {@link StateChange}s go to become durable (file journal, PostgreSQL, memory). Nothing a change makes
 * visible (an answer, a patch, a snapshot) leaves the server before the
 * change is durable, so a revision a client has seen is never lost and
 * never reused.
 */
export interface ChangeLog {
  /** Records a change just made in memory. */
  record(change: StateChange): void;
  /** Resolves once everything recorded so far is durable; rejects when it cannot become so. */
  whenDurable(): Promise<void>;
  /**
   * Resolves once what a read just rendered may leave the server: at once
   * where reads are rendered from committed state only (a fleet store), once
   * the changes it may show are durable where writes are applied in memory
   * before they are (the state file). Never waits on another request's
   * commit on a fleet: a write's failure, retry or race is that write's alone.
   */
  readable(): Promise<void>;
  /**
   * Resolves once every write made in process (`commitLater`: `server.admin`, returned to its caller already)
   * to `slug` before this call is committed or undone, so a read after it shows it, as on one server. Absent
   * where such writes are applied at once. Writes over HTTP in flight are never waited for.
   */
  inProcessWritesSettled?(slug: string): Promise<void>;
  /**
   * The state of `slug` as last committed, where a write in flight has
   * changed it in memory ahead of its commit; undefined where memory holds
   * the committed state (nothing in flight touches it). Reads render this.
   */
  committedService?(slug: string): CommittedService | undefined;
  /** Runs `action` once everything recorded so far is durable, after the actions registered before it. */
  afterDurable(action: () => void): void;
  /** Writes what is pending and releases the files. */
  close(): Promise<void>;
  /** The revision a recorded change made, with what it touched and when: a fleet store keeps these with the change. */
  revised(change: CommittedRevision): void;
  /**
   * Runs a write against the latest committed state and resolves with its
   * result once it is durable. A fleet store first catches up with what
   * other replicas committed, under a lock, so revisions stay gapless.
   */
  commit<T>(write: StoreWrite<T>): Promise<T>;
  /**
   * Runs a write at once and makes it durable in the background (the
   * in-process `server.admin`): its result is returned before it is durable,
   * and nothing it changed is visible over HTTP before then.
   */
  commitLater<T>(write: StoreWrite<T>): T;
  /**
   * A client showed a revision this replica has not applied. Resolves true
   * once this replica holds everything committed when it was called (a fleet
   * store reads what other replicas committed), so a revision still ahead is
   * from another database; false when that could not be read in time. Never
   * rejects.
   */
  behind(): Promise<boolean>;
  /**
   * How long a stream whose `Last-Event-ID` is ahead of this replica, and
   * which {@link behind} could not settle, waits for it (another replica may
   * have committed it) before it is sent the replica's own revision; 0 where
   * no other replica can be ahead.
   */
  readonly aheadHoldMs: number;
  /**
   * Rewrites the whole stored state now (sealed with the newest keys), so
   * nothing stored still needs a key replaced since; absent when nothing is
   * stored.
   */
  checkpoint?(): Promise<void>;
  /**
   * The other live replicas that do not hold root key `rootKeyId` (ids, as
   * their heartbeats report them); absent where there are no other replicas.
   */
  replicasLacking?(rootKeyId: string): Promise<string[]>;
}

/** {@link ChangeLog.commit} for a log whose writes run at once: run, then wait until durable. */
export async function commitThenWait<T>(log: ChangeLog, write: StoreWrite<T>): Promise<T> {
  const result = write.run();
  await log.whenDurable();
  return result;
}

const RESOLVED = Promise.resolve();

/** {@link ChangeLog.behind} of a log with one writer: it always holds every revision. */
export const CAUGHT_UP: Promise<boolean> = Promise.resolve(true);

/** The change log without a state file: nothing to wait for, so a stream sees a change before the call returns. */
export class MemoryChangeLog implements ChangeLog {
  /** Nothing is kept. */
  record(): void {}

  /** Already durable, as durable as memory gets. */
  whenDurable(): Promise<void> {
    return RESOLVED;
  }

  /** Nothing is ever pending. */
  readable(): Promise<void> {
    return RESOLVED;
  }

  /** Runs `action` now. */
  afterDurable(action: () => void): void {
    action();
  }

  /** Nothing to release. */
  close(): Promise<void> {
    return RESOLVED;
  }

  /** Nothing is kept. */
  revised(): void {}

  /** Runs the write; it is as durable as memory gets at once. */
  commit<T>(write: StoreWrite<T>): Promise<T> {
    return commitThenWait(this, write);
  }

  /** Runs the write. */
  commitLater<T>(write: StoreWrite<T>): T {
    return write.run();
  }

  /** Nothing to read: no other replica, so this one holds every revision. */
  behind(): Promise<boolean> {
    return CAUGHT_UP;
  }

  /** No other replica can be ahead. */
  readonly aheadHoldMs = 0;
}
