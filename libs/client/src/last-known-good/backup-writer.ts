/**
 * Saving the snapshot to the last-known-good store, off the read path:
 * coalesced (a burst of patches is one write, of the newest revision) and
 * never more than once per revision.
 *
 * @packageDocumentation
 */
import type { VaneLogger } from '../util/logger.js';
import { redactText } from '../util/redact.js';
import type { Snapshot } from '@vane/client-core';
import type { Clock, TimerHandle, Timers } from '../util/timers.js';
import { encodeBackup, type BackupIdentity } from './backup-document.js';
import type { LastKnownGoodStore } from './last-known-good-store.js';

/** What a {@link BackupWriter} needs. */
export interface BackupWriterContext {
  readonly store: LastKnownGoodStore;
  readonly identity: BackupIdentity;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly logger: VaneLogger;
  /**
   * Rewrite an unchanged revision once its saved copy is this old, in
   * milliseconds, so a service that rarely changes keeps a backup younger
   * than `maxAgeMs` (the client passes half of it). `undefined`: never.
   */
  readonly refreshAfterMs: number | undefined;
  /** How long `close()` waits for a save in progress, in milliseconds. */
  readonly closeTimeoutMs: number;
}

/** Lets the caller's synchronous work (install, change listeners) finish before the save starts. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function failureText(err: unknown): string {
  return redactText(err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 300);
}

/**
 * Saves the newest snapshot offered to it. `offer()` costs a comparison; the
 * encoding, the encryption and the store's write happen later, one at a
 * time. A failed save is logged once per streak of failures and tried again
 * the next time a snapshot is offered; it never reaches the caller.
 */
export class BackupWriter {
  readonly #c: BackupWriterContext;
  #pending: Snapshot | undefined;
  #running: Promise<void> | undefined;
  #savedRevision = -1;
  #savedAtMs = Number.NEGATIVE_INFINITY;
  #failing = false;
  #closed = false;
  #writes = 0;

  constructor(context: BackupWriterContext) {
    this.#c = context;
  }

  /** Saves completed so far (for tests and benchmarks). */
  get writes(): number {
    return this.#writes;
  }

  /** Revision of the last successful save (-1 before any). */
  get savedRevision(): number {
    return this.#savedRevision;
  }

  #due(snapshot: Snapshot): boolean {
    if (snapshot.revision > this.#savedRevision) return true;
    if (snapshot.revision < this.#savedRevision) return false;
    const refresh = this.#c.refreshAfterMs;
    return refresh !== undefined && this.#c.clock.now() - this.#savedAtMs >= refresh;
  }

  /**
   * Notes `snapshot` (just applied) as the one to save. Returns at once; a
   * snapshot whose revision is already saved is ignored (unless its copy is
   * due for a refresh), and one offered while a save runs replaces any
   * other waiting.
   */
  offer(snapshot: Snapshot): void {
    if (this.#closed || !this.#due(snapshot)) return;
    if (this.#pending !== undefined && this.#pending.revision > snapshot.revision) return;
    this.#pending = snapshot;
    this.#running ??= this.#drain();
  }

  async #drain(): Promise<void> {
    try {
      await nextTurn();
      for (let snapshot = this.#take(); snapshot !== undefined; snapshot = this.#take()) {
        if (this.#due(snapshot)) await this.#save(snapshot);
      }
    } finally {
      this.#running = undefined;
    }
  }

  #take(): Snapshot | undefined {
    const snapshot = this.#pending;
    this.#pending = undefined;
    return snapshot;
  }

  async #save(snapshot: Snapshot): Promise<void> {
    const { store, identity, logger } = this.#c;
    const savedAtMs = this.#c.clock.now();
    try {
      await store.write(identity.serviceId, encodeBackup(snapshot, savedAtMs, identity));
    } catch (err) {
      if (!this.#failing) {
        logger.warn(
          `last-known-good: cannot save revision ${snapshot.revision} to ${store.describe(identity.serviceId)} (${failureText(err)}); trying again with the next sync`,
        );
      }
      this.#failing = true;
      return;
    }
    this.#savedRevision = snapshot.revision;
    this.#savedAtMs = savedAtMs;
    this.#writes += 1;
    if (this.#failing) {
      this.#failing = false;
      logger.info?.(`last-known-good: saving to ${store.describe(identity.serviceId)} works again`);
    }
    logger.debug?.(`last-known-good: saved revision ${snapshot.revision}`);
  }

  /** Resolves once nothing is being saved or waiting to be. */
  async flush(): Promise<void> {
    while (this.#running) await this.#running;
  }

  /**
   * Takes no more snapshots, and waits for the save in progress (and the
   * one waiting, if any) for at most `closeTimeoutMs`; a store that hangs
   * longer is left to finish on its own. Idempotent.
   */
  async close(): Promise<void> {
    this.#closed = true;
    if (!this.#running) return;
    let timer: TimerHandle;
    let timedOut = false;
    const timeout = new Promise<void>((resolve) => {
      timer = this.#c.timers.setTimeout(() => {
        timedOut = true;
        resolve();
      }, this.#c.closeTimeoutMs);
    });
    await Promise.race([this.flush(), timeout]);
    this.#c.timers.clearTimeout(timer!);
    if (timedOut) {
      this.#c.logger.warn(
        `last-known-good: the save to ${this.#c.store.describe(this.#c.identity.serviceId)} did not finish within ${this.#c.closeTimeoutMs} ms; closing without it`,
      );
    }
  }
}
