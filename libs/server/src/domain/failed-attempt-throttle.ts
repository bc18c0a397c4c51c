import { retryAfterSeconds, type RateLimitDecision } from './rate-limiter.js';

/** Settings of {@link FailedAttemptThrottle}; every duration is in milliseconds. */
export interface FailedAttemptThrottleOptions {
  /** Wrong guesses an address may make before the first wait (typos happen). @default 5 */
  freeFailures: number;
  /** The first wait; each further wrong guess doubles it. @default 1000 */
  baseDelayMs: number;
  /** The longest wait, however many wrong guesses. @default 60000 */
  maxDelayMs: number;
  /**
   * An address's wrong guesses are forgotten once it has made none for this
   * long; more than `maxDelayMs`, so waiting out the longest wait does not
   * reset the count. @default 600000 (10 minutes)
   */
  forgetAfterMs: number;
}

/** The defaults of {@link FailedAttemptThrottleOptions}. */
export const DEFAULT_FAILED_ATTEMPT_THROTTLE: Readonly<FailedAttemptThrottleOptions> = Object.freeze({
  freeFailures: 5,
  baseDelayMs: 1000,
  maxDelayMs: 60_000,
  forgetAfterMs: 600_000,
});

/** Addresses remembered at once; beyond this the one whose last wrong guess is oldest is forgotten. */
const MAX_ADDRESSES = 10_000;

interface Failures {
  count: number;
  lastFailureMs: number;
  /** No guess from this address is checked before this time. */
  lockedUntilMs: number;
}

/**
 * Slows down guessing of a secret (the admin token) per client address.
 * After `freeFailures` wrong guesses, each further wrong guess makes the
 * address wait before its next guess is even checked, `baseDelayMs`
 * doubling up to `maxDelayMs`. A guess made while the address waits is
 * refused without being checked or counted, so it reveals nothing and does
 * not lengthen the wait; once the wait is over the next guess, right or
 * wrong, is checked. The right token therefore always gets in within
 * `maxDelayMs` of the last wrong guess, and a quiet address is forgotten
 * after `forgetAfterMs`. A right guess does not clear the count: whoever
 * else guesses from the same address (on loopback, every local process) gets
 * no fresh allowance from it.
 *
 * Pure: the caller passes the time, so no timers run and tests move time by hand.
 */
export class FailedAttemptThrottle {
  private readonly addresses = new Map<string, Failures>();
  private readonly options: Readonly<FailedAttemptThrottleOptions>;

  /** @throws RangeError naming the option that is out of range. */
  constructor(options: Partial<FailedAttemptThrottleOptions> = {}) {
    const merged = { ...DEFAULT_FAILED_ATTEMPT_THROTTLE, ...options };
    if (!Number.isSafeInteger(merged.freeFailures) || merged.freeFailures < 0) {
      throw new RangeError('freeFailures must be an integer of at least 0');
    }
    if (!Number.isFinite(merged.baseDelayMs) || merged.baseDelayMs < 1) {
      throw new RangeError('baseDelayMs must be a number of milliseconds of at least 1');
    }
    if (!Number.isFinite(merged.maxDelayMs) || merged.maxDelayMs < merged.baseDelayMs) {
      throw new RangeError('maxDelayMs must be a number of milliseconds of at least baseDelayMs');
    }
    if (!Number.isFinite(merged.forgetAfterMs) || merged.forgetAfterMs <= merged.maxDelayMs) {
      throw new RangeError('forgetAfterMs must be a number of milliseconds above maxDelayMs');
    }
    this.options = merged;
  }

  /** Addresses remembered now (at most 10,000). */
  get size(): number {
    return this.addresses.size;
  }

  /**
   * Whether a guess from `address` may be checked now.
   *
   * @returns `allowed: false` with the whole seconds, at least 1, until it may (the `Retry-After` header).
   */
  check(address: string, nowMs: number): RateLimitDecision {
    const failures = this.current(address, nowMs);
    if (failures === undefined || failures.lockedUntilMs <= nowMs) return { allowed: true };
    return { allowed: false, retryAfterSeconds: retryAfterSeconds(failures.lockedUntilMs - nowMs) };
  }

  /** Records a wrong guess from `address`, checked at `nowMs`. */
  fail(address: string, nowMs: number): void {
    const failures = this.current(address, nowMs) ?? { count: 0, lastFailureMs: nowMs, lockedUntilMs: 0 };
    failures.count += 1;
    failures.lastFailureMs = nowMs;
    const over = failures.count - this.options.freeFailures;
    if (over > 0) {
      // 2 ** over overflows to Infinity long after the cap; Math.min keeps the result finite.
      failures.lockedUntilMs = nowMs + Math.min(this.options.maxDelayMs, this.options.baseDelayMs * 2 ** (over - 1));
    }
    // Re-inserted, so the map stays in order of last wrong guess and the oldest is first to go.
    this.addresses.delete(address);
    if (this.addresses.size >= MAX_ADDRESSES) this.sweep(nowMs);
    if (this.addresses.size >= MAX_ADDRESSES) this.addresses.delete(this.addresses.keys().next().value!);
    this.addresses.set(address, failures);
  }

  /** Forgets every address that made no wrong guess for `forgetAfterMs`. */
  sweep(nowMs: number): void {
    for (const [address, failures] of this.addresses) {
      if (nowMs - failures.lastFailureMs < this.options.forgetAfterMs) break; // in order: the rest are newer
      this.addresses.delete(address);
    }
  }

  private current(address: string, nowMs: number): Failures | undefined {
    const failures = this.addresses.get(address);
    if (failures !== undefined && nowMs - failures.lastFailureMs >= this.options.forgetAfterMs) {
      this.addresses.delete(address);
      return undefined;
    }
    return failures;
  }
}
