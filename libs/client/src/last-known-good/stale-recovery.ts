/**
 * While a client serves its backup, it asks the service again and again,
 * backing off, until one sync succeeds.
 *
 * @packageDocumentation
 */
import { backoffDelayMs } from '@vane/client-core';
import { BillingOverdueError, QuarantinedError, RateLimitedError } from '../errors.js';
import type { VaneLogger } from '../util/logger.js';
import { redactText } from '../util/redact.js';
import type { Clock, TimerHandle, Timers } from '../util/timers.js';

/** What a {@link StaleRecovery} needs. */
export interface StaleRecoveryContext {
  /** One foreground sync; resolves once the service's snapshot is applied. */
  readonly sync: () => Promise<unknown>;
  /** First delay, in milliseconds; it doubles on each failure, with jitter. */
  readonly backoffMinMs: number;
  /** Upper bound of the delay, in milliseconds. */
  readonly backoffMaxMs: number;
  /** Longest wait a `Retry-After` or a quarantine's `until` may impose, in milliseconds. */
  readonly maxRetryAfterMs: number;
  readonly random: () => number;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly logger: VaneLogger;
}

/**
 * The retry loop of a stale client. Failures are logged at debug level
 * (the start already said, once, that the client is stale) and never
 * thrown. A 429 or a quarantine waits at least as long as the service asks
 * (capped); a 402 stops the loop, as the specification halts background
 * sync on billing (a foreground `sync()` resumes).
 */
export class StaleRecovery {
  readonly #c: StaleRecoveryContext;
  #attempt = 0;
  #timer: TimerHandle | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(context: StaleRecoveryContext) {
    this.#c = context;
  }

  /** Attempts made so far. */
  get attempts(): number {
    return this.#attempt;
  }

  /**
   * Schedules the next attempt after the backoff delay.
   * @param first - when given, awaited as the first attempt (e.g. the initial sync, still running).
   */
  start(first?: Promise<unknown>): void {
    if (this.#stopped) return;
    if (first !== undefined) this.#running = this.#settle(first);
    else this.#schedule(undefined);
  }

  #schedule(error: unknown): void {
    if (this.#stopped) return;
    let delayMs = backoffDelayMs(this.#attempt, {
      minMs: this.#c.backoffMinMs,
      maxMs: this.#c.backoffMaxMs,
      random: this.#c.random,
    });
    if (error instanceof RateLimitedError || error instanceof QuarantinedError) {
      const untilMs =
        error instanceof QuarantinedError && error.until ? error.until.getTime() - this.#c.clock.now() : 0;
      delayMs = Math.max(delayMs, Math.min(this.#c.maxRetryAfterMs, Math.max(error.retryAfterMs ?? 0, untilMs)));
    }
    this.#timer = this.#c.timers.setTimeout(() => {
      this.#timer = undefined;
      this.#running = this.#settle(this.#c.sync());
    }, delayMs);
  }

  async #settle(attempt: Promise<unknown>): Promise<void> {
    this.#attempt += 1;
    try {
      await attempt;
      this.stop();
    } catch (error) {
      if (this.#stopped) return;
      if (error instanceof BillingOverdueError) {
        this.stop();
        return;
      }
      this.#c.logger.debug?.(
        `still stale after attempt ${this.#attempt}: ${redactText(error instanceof Error ? error.message : String(error))}`,
      );
      this.#schedule(error);
    }
  }

  /** Cancels the next attempt. An attempt in flight is left to finish (its outcome is ignored). */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#c.timers.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Stops, and waits for an attempt in flight to settle. */
  async close(): Promise<void> {
    this.stop();
    await this.#running;
  }
}
