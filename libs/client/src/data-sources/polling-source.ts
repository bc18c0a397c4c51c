/**
 * The polling source: a conditional `GET /v1/sync` every TTL.
 *
 * @packageDocumentation
 */
import type { DataSource, SourceEvents } from './data-source.js';
import type { SnapshotSync } from './snapshot-sync.js';
import type { TimerHandle, Timers } from '../util/timers.js';

/** Node fires longer timeouts at once: every delay is capped to this (about 24.8 days). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Polls the service: when its timer fires, one conditional sync (a 304 costs
 * no parsing). A success reaches the supervisor through the sync's
 * `synced` event, which makes the supervisor schedule the next poll; a
 * failure as a `failed` event.
 */
export class PollingSource implements DataSource {
  #timer: TimerHandle | undefined;

  constructor(
    private readonly sync: SnapshotSync,
    private readonly timers: Timers,
    private readonly events: SourceEvents,
  ) {}

  /** True while a poll is scheduled. */
  get scheduled(): boolean {
    return this.#timer !== undefined;
  }

  schedule(delayMs: number): void {
    this.#clear();
    this.#timer = this.timers.setTimeout(
      () => {
        this.#timer = undefined;
        this.sync.sync().catch((error: unknown) => this.events({ type: 'failed', kind: 'sync', error, reason: 'ttl' }));
      },
      Math.min(delayMs, MAX_TIMER_MS),
    );
  }

  stop(): Promise<void> {
    this.#clear();
    return Promise.resolve();
  }

  #clear(): void {
    if (this.#timer !== undefined) this.timers.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
