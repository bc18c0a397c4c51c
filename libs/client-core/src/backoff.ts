/**
 * Pure reconnect delays: exponential with jitter. Starts no timer and reads
 * no clock of its own; randomness is injected.
 *
 * @packageDocumentation
 */

/** Settings of {@link backoffDelayMs}. */
export interface BackoffSettings {
  /** Delay before the first retry, in milliseconds. */
  readonly minMs: number;
  /** Upper bound of any delay, in milliseconds. */
  readonly maxMs: number;
  /** Source of randomness in [0, 1). */
  readonly random: () => number;
}

/**
 * Delay before retry number `attempt` (0 for the first retry): the base
 * doubles from `minMs` up to `maxMs`, and up to half of it is taken off at
 * random, so a fleet of clients that lost the same server does not come back
 * in step. The result is always in `[base / 2, base]`.
 *
 * @param attempt - consecutive failures so far, minus one (0-based).
 * @returns the delay in milliseconds (an integer).
 */
export function backoffDelayMs(attempt: number, settings: BackoffSettings): number {
  const base = Math.min(settings.maxMs, settings.minMs * 2 ** Math.min(Math.max(0, Math.floor(attempt)), 31));
  // A `random` outside [0, 1] is clamped, so the delay never leaves its range.
  return Math.round(base - (Math.min(Math.max(settings.random(), 0), 1) * base) / 2);
}

/** Settings of a {@link Backoff}. */
export interface BackoffOptions extends BackoffSettings {
  /**
   * How long a connection must stay open to count as healthy, in
   * milliseconds: only then does its end reset the failure count and the delay.
   */
  readonly healthyMs: number;
}

/** What {@link Backoff.fail} decided. */
export interface BackoffStep {
  /** Consecutive failures, this one included (1 after a healthy connection). */
  readonly failures: number;
  /** Delay before the next attempt, in milliseconds. */
  readonly delayMs: number;
  /** True when this failure ended a connection that had been healthy (the count restarted). */
  readonly afterHealthy: boolean;
}

/**
 * Reconnect state of one connection: counts consecutive failures and gives
 * the next delay. A connection resets the count only once it has stayed open
 * for `healthyMs`, so a server (or proxy) that accepts and then cuts at once
 * cannot hold a client in a fast reconnect loop. Pure: the caller passes the
 * time; no timer, no clock, randomness injected.
 */
export class Backoff {
  readonly #options: BackoffOptions;
  #failures = 0;
  #openedAtMs: number | undefined;

  /** @param options - delays, healthy interval and randomness. */
  constructor(options: BackoffOptions) {
    this.#options = options;
  }

  /** Consecutive failures so far. */
  get failures(): number {
    return this.#failures;
  }

  /** The connection opened at `nowMs`. The count stays until it proves healthy. */
  opened(nowMs: number): void {
    this.#openedAtMs = nowMs;
  }

  /** True when the open connection has been open for `healthyMs` at `nowMs`. */
  healthy(nowMs: number): boolean {
    return this.#openedAtMs !== undefined && nowMs - this.#openedAtMs >= this.#options.healthyMs;
  }

  /** The attempt (or the open connection) failed at `nowMs`. */
  fail(nowMs: number): BackoffStep {
    const afterHealthy = this.healthy(nowMs);
    const failures = (this.#failures = afterHealthy ? 1 : this.#failures + 1);
    this.#openedAtMs = undefined;
    return { failures, delayMs: backoffDelayMs(failures - 1, this.#options), afterHealthy };
  }

  /** Forgets every failure (e.g. after a billing halt was lifted). */
  reset(): void {
    this.#failures = 0;
    this.#openedAtMs = undefined;
  }
}

/**
 * Parses a `Retry-After` header (delay in seconds, or an HTTP date).
 *
 * @param value - the header value, if any.
 * @param nowMs - the current time, for the HTTP-date form.
 * @returns the delay in milliseconds, or `undefined` when absent or unreadable.
 */
export function parseRetryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  // Absent reads as '', which neither form accepts.
  const trimmed = value?.trim() ?? '';
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}
