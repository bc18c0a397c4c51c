import type { GuessRecord } from './model.js';
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

/**
 * The throttle's settings with the defaults filled in.
 *
 * @throws RangeError naming the option that is out of range.
 */
export function checkFailedAttemptThrottleOptions(
  options: Partial<FailedAttemptThrottleOptions> = {},
): Readonly<FailedAttemptThrottleOptions> {
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
  return merged;
}

/** Addresses a {@link MemoryGuessLedger} remembers at once; beyond this the one whose last wrong guess is oldest goes. */
const MAX_ADDRESSES = 10_000;

/**
 * Where the wrong guesses per address are kept: this process's memory
 * ({@link MemoryGuessLedger}), or the store, so that a fleet's replicas
 * share one count and a restart does not reset it.
 */
export interface GuessLedger {
  /** The address's wrong guesses, if any are kept. */
  get(address: string): Readonly<GuessRecord> | undefined;
  /** Keeps the address's wrong guesses after one more; entries whose last is before `forgetBeforeMs` may go. */
  set(address: string, guesses: GuessRecord, forgetBeforeMs: number): void;
}

/** Wrong guesses in this process's memory, at most 10,000 addresses (a restart forgets them). */
export class MemoryGuessLedger implements GuessLedger {
  private readonly addresses = new Map<string, GuessRecord>();

  /** Addresses remembered now. */
  get size(): number {
    return this.addresses.size;
  }

  get(address: string): Readonly<GuessRecord> | undefined {
    return this.addresses.get(address);
  }

  set(address: string, guesses: GuessRecord, forgetBeforeMs: number): void {
    // Re-inserted, so the map stays in order of last wrong guess and the oldest is first to go.
    this.addresses.delete(address);
    if (this.addresses.size >= MAX_ADDRESSES) this.sweep(forgetBeforeMs);
    if (this.addresses.size >= MAX_ADDRESSES) this.addresses.delete(this.addresses.keys().next().value!);
    this.addresses.set(address, { ...guesses });
  }

  /** Forgets every address whose last wrong guess is before `forgetBeforeMs`. */
  sweep(forgetBeforeMs: number): void {
    for (const [address, guesses] of this.addresses) {
      if (guesses.last_failure_ms >= forgetBeforeMs) break; // in order: the rest are newer
      this.addresses.delete(address);
    }
  }
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
  private readonly options: Readonly<FailedAttemptThrottleOptions>;
  private readonly ledger: GuessLedger;

  /**
   * @param ledger - where the wrong guesses are kept. @default a {@link MemoryGuessLedger}
   * @throws RangeError naming the option that is out of range.
   */
  constructor(options: Partial<FailedAttemptThrottleOptions> = {}, ledger: GuessLedger = new MemoryGuessLedger()) {
    this.options = checkFailedAttemptThrottleOptions(options);
    this.ledger = ledger;
  }

  /**
   * Whether a guess from `address` may be checked now.
   *
   * @returns `allowed: false` with the whole seconds, at least 1, until it may (the `Retry-After` header).
   */
  check(address: string, nowMs: number): RateLimitDecision {
    const guesses = this.current(address, nowMs);
    if (guesses === undefined || guesses.locked_until_ms <= nowMs) return { allowed: true };
    return { allowed: false, retryAfterSeconds: retryAfterSeconds(guesses.locked_until_ms - nowMs) };
  }

  /** Records a wrong guess from `address`, checked at `nowMs`. */
  fail(address: string, nowMs: number): void {
    const before = this.current(address, nowMs);
    const count = (before?.count ?? 0) + 1;
    const over = count - this.options.freeFailures;
    const lockedUntilMs =
      over > 0
        ? // 2 ** over overflows to Infinity long after the cap; Math.min keeps the result finite.
          nowMs + Math.min(this.options.maxDelayMs, this.options.baseDelayMs * 2 ** (over - 1))
        : (before?.locked_until_ms ?? 0);
    this.ledger.set(
      address,
      { count, last_failure_ms: nowMs, locked_until_ms: lockedUntilMs },
      nowMs - this.options.forgetAfterMs,
    );
  }

  /** The address's wrong guesses, unless forgotten by now. */
  private current(address: string, nowMs: number): Readonly<GuessRecord> | undefined {
    const guesses = this.ledger.get(address);
    if (guesses === undefined || nowMs - guesses.last_failure_ms >= this.options.forgetAfterMs) return undefined;
    return guesses;
  }
}
