/**
 * The stale start of a client, from the first sync to the return to fresh:
 * what the client does with its last-known-good backup, in one place.
 *
 * @packageDocumentation
 */
import type { ClientStatus } from '../data-sources/client-status.js';
import { ConfigInvalidError } from '../errors.js';
import type { Snapshot } from '@vane/client-core';
import type { StateStore } from '../store/state-store.js';
import { LastKnownGoodBackup, type LastKnownGoodContext } from './last-known-good-backup.js';
import type { ResolvedLastKnownGood } from './last-known-good-options.js';
import type { StaleStart } from './stale-start.js';

/** The parts of the client a {@link StaleStartCoordinator} works with. */
export interface StaleStartParts {
  /** Installs the backup, and tells of every snapshot applied from the service. */
  readonly store: StateStore;
  /** Where `stale` is set and cleared. */
  readonly status: ClientStatus;
  /** One foreground sync (a retry while stale); resolves once the service's snapshot is applied. */
  readonly sync: () => Promise<unknown>;
  /** Tells the supervisor of a failed foreground call (a 402 halts background work). */
  readonly foregroundFailed: (error: unknown) => void;
}

/**
 * Wired by the client when `lastKnownGood` is set. It saves every snapshot
 * the client applies from the service; at the start it serves the backup
 * when the service cannot be reached (see {@link StaleStartCoordinator.start}),
 * retries the service in the background, and clears `stale` once a
 * snapshot from the service is applied.
 */
export class StaleStartCoordinator {
  readonly #backup: LastKnownGoodBackup;
  readonly #parts: StaleStartParts;
  readonly #context: LastKnownGoodContext;
  #stale: StaleStart | undefined;

  constructor(lastKnownGood: ResolvedLastKnownGood, context: LastKnownGoodContext, parts: StaleStartParts) {
    const backup = new LastKnownGoodBackup(lastKnownGood, context);
    this.#backup = backup;
    this.#parts = parts;
    this.#context = context;
    // Every snapshot from the service, the first included, is saved; the first one after a stale start ends it.
    parts.store.onApplied(({ snapshot, origin }) => {
      if (backup.applied(snapshot, origin)) parts.status.update({ stale: undefined });
    });
  }

  /**
   * The start: waits for the initial sync within `initTimeoutMs`; when the
   * service fails for an outage reason and the backup is usable, installs the
   * backup (unless the service's snapshot came first) and marks the client
   * stale. Rejects as a start without a backup would otherwise, and with the
   * start's own error when the backup does not satisfy the schema.
   *
   * @param initial - the initial sync (credentials included), already started.
   * @returns true when the client now serves its backup.
   */
  async start(initial: Promise<void>): Promise<boolean> {
    const start = await this.#backup.start(initial);
    if (start === undefined) return false;
    let restored: boolean;
    try {
      restored = await this.#parts.store.restore(start.backup.snapshot, start.backup.savedAtMs);
    } catch (err) {
      // A backup that breaks the app's schema is a bad backup like a tampered one: never served.
      if (!(err instanceof ConfigInvalidError)) throw err;
      this.#context.logger.warn(
        `last-known-good: ignoring the backup in ${this.#backup.where}: it does not satisfy the schema (${err.invalid
          .map((i) => i.key)
          .join(', ')}); the start fails (${start.error.code})`,
      );
      throw start.error;
    }
    if (!restored) return false;
    this.#stale = start;
    this.#parts.status.update({ stale: this.#backup.becomeStale(start) });
    return true;
  }

  /**
   * After a stale start, once the sources run: retries the service with
   * backoff until a sync succeeds. A 402 start halts background work
   * instead (the specification's rule; a foreground `sync()` resumes).
   * Does nothing when the start was not stale.
   */
  recover(): void {
    const start = this.#stale;
    if (start === undefined) return;
    const { sync, foregroundFailed } = this.#parts;
    if (start.reason === 'billing-overdue') {
      foregroundFailed(start.error);
      return;
    }
    const reportHalt = (err: unknown): never => {
      foregroundFailed(err);
      throw err;
    };
    this.#backup.recover(() => sync().catch(reportHalt), start.pending?.catch(reportHalt));
  }

  /** A sync succeeded (200 or 304): an unchanged snapshot may be due for a refresh of its copy. */
  synced(snapshot: Snapshot): void {
    this.#backup.synced(snapshot);
  }

  /** Stops the retries at once (no new attempt is scheduled). */
  stop(): void {
    this.#backup.stop();
  }

  /** Stops the retries and waits (bounded by `timeoutMs`) for the save in progress. */
  close(): Promise<void> {
    return this.#backup.close();
  }
}
