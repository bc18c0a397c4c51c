import type { StateChange } from '../persistence/state-change.js';

/**
 * Where the store's changes go to become durable. Nothing a change makes
 * visible (an answer, a patch, a snapshot) leaves the server before the
 * change is durable, so a revision a client has seen is never lost and
 * never reused.
 */
export interface ChangeLog {
  /** Records a change just made in memory. */
  record(change: StateChange): void;
  /** Resolves once everything recorded so far is durable; rejects when it cannot become so. */
  whenDurable(): Promise<void>;
  /** Runs `action` once everything recorded so far is durable, after the actions registered before it. */
  afterDurable(action: () => void): void;
  /** Writes what is pending and releases the files. */
  close(): Promise<void>;
  /**
   * Rewrites the whole stored state now (sealed with the newest keys), so
   * nothing stored still needs a key replaced since; absent when nothing is
   * stored.
   */
  checkpoint?(): Promise<void>;
}

const RESOLVED = Promise.resolve();

/** The change log without a state file: nothing to wait for, so a stream sees a change before the call returns. */
export class MemoryChangeLog implements ChangeLog {
  /** Nothing is kept. */
  record(): void {}

  /** Already durable, as durable as memory gets. */
  whenDurable(): Promise<void> {
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
}
