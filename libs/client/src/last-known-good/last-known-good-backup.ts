/**
 * The last-known-good backup of one client: saving what it applies, the
 * stale start, the retries while stale, and the return to fresh.
 *
 * @packageDocumentation
 */
import type { VaneLogger } from '../util/logger.js';
import type { Snapshot } from '@vane/client-core';
import type { Clock, Timers } from '../util/timers.js';
import { BackupWriter } from './backup-writer.js';
import type { ResolvedLastKnownGood } from './last-known-good-options.js';
import { StaleRecovery } from './stale-recovery.js';
import { formatAge, staleStartMessage, startFromServiceOrBackup, type StaleStart } from './stale-start.js';
import type { StaleState } from './stale-state.js';

/** What the backup borrows from the client's options. */
export interface LastKnownGoodContext {
  readonly clock: Clock;
  readonly timers: Timers;
  readonly logger: VaneLogger;
  readonly random: () => number;
  /** Bounds a store's read, and how long `close()` waits for a save. */
  readonly timeoutMs: number;
  readonly backoffMinMs: number;
  readonly backoffMaxMs: number;
  readonly maxRetryAfterMs: number;
}

/**
 * Wired by the client when `lastKnownGood` is set: it is told of every
 * snapshot applied from the service and of every successful sync, and it
 * runs the start. Nothing here ever throws into the app once the client is
 * built.
 */
export class LastKnownGoodBackup {
  readonly #lkg: ResolvedLastKnownGood;
  readonly #c: LastKnownGoodContext;
  readonly #writer: BackupWriter;
  #stale: StaleState | undefined;
  #staleSinceMs = 0;
  #recovery: StaleRecovery | undefined;

  constructor(lastKnownGood: ResolvedLastKnownGood, context: LastKnownGoodContext) {
    this.#lkg = lastKnownGood;
    this.#c = context;
    this.#writer = new BackupWriter({
      store: lastKnownGood.store,
      identity: lastKnownGood.identity,
      clock: context.clock,
      timers: context.timers,
      logger: context.logger,
      refreshAfterMs: lastKnownGood.maxAgeMs === undefined ? undefined : lastKnownGood.maxAgeMs / 2,
      closeTimeoutMs: context.timeoutMs,
    });
  }

  /** Where the backup lives, for log lines. */
  get where(): string {
    return this.#lkg.store.describe(this.#lkg.identity.serviceId);
  }

  /** While the client serves the backup: why and since which save. */
  get stale(): StaleState | undefined {
    return this.#stale;
  }

  /** Saves completed (for tests and benchmarks). */
  get writes(): number {
    return this.#writer.writes;
  }

  /** The start: the service within `initTimeoutMs`, else the backup (see {@link startFromServiceOrBackup}). */
  start(initial: Promise<void>): Promise<StaleStart | undefined> {
    return startFromServiceOrBackup(initial, {
      lastKnownGood: this.#lkg,
      readTimeoutMs: this.#c.timeoutMs,
      clock: this.#c.clock,
      timers: this.#c.timers,
      logger: this.#c.logger,
    });
  }

  /** The client now serves the backup: logs the one line that says so. */
  becomeStale(start: StaleStart): StaleState {
    const { backup } = start;
    this.#stale = Object.freeze({
      reason: start.reason,
      error: start.error,
      revision: backup.snapshot.revision,
      savedAt: new Date(backup.savedAtMs),
      secretsAvailable: backup.secrets !== 'omitted',
    });
    this.#staleSinceMs = this.#c.clock.now();
    this.#c.logger.warn(staleStartMessage(start, this.where));
    return this.#stale;
  }

  /**
   * Retries the service with backoff until a sync succeeds.
   * @param first - the initial sync, when it was still running at `initTimeoutMs`.
   */
  recover(sync: () => Promise<unknown>, first: Promise<unknown> | undefined): void {
    this.#recovery = new StaleRecovery({
      sync,
      backoffMinMs: this.#c.backoffMinMs,
      backoffMaxMs: this.#c.backoffMaxMs,
      maxRetryAfterMs: this.#c.maxRetryAfterMs,
      random: this.#c.random,
      clock: this.#c.clock,
      timers: this.#c.timers,
      logger: this.#c.logger,
    });
    this.#recovery.start(first);
  }

  /**
   * A snapshot from the service was applied: saves it, and ends staleness —
   * unless it is a patch on a backup that holds no secrets (only a full sync
   * brings those; the retries go on).
   *
   * @returns true when the client just turned fresh.
   */
  applied(snapshot: Snapshot, origin: 'sync' | 'patch'): boolean {
    this.#writer.offer(snapshot);
    const stale = this.#stale;
    if (stale === undefined || (origin === 'patch' && !stale.secretsAvailable)) return false;
    this.#stale = undefined;
    this.#recovery?.stop();
    const log = this.#c.logger.info ?? this.#c.logger.warn;
    log.call(
      this.#c.logger,
      `fresh again: revision ${snapshot.revision} from the service replaces the last-known-good backup (revision ${stale.revision}), after ${formatAge(Math.max(0, this.#c.clock.now() - this.#staleSinceMs))} stale`,
    );
    return true;
  }

  /** A sync succeeded (200 or 304): an unchanged snapshot may be due for a refresh of its copy. */
  synced(snapshot: Snapshot): void {
    this.#writer.offer(snapshot);
  }

  /** Stops the retries at once (no new attempt is scheduled). */
  stop(): void {
    this.#recovery?.stop();
  }

  /** Stops the retries and waits (bounded) for the save in progress. */
  async close(): Promise<void> {
    this.stop();
    await this.#recovery?.close();
    await this.#writer.close();
  }
}
