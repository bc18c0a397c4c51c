/**
 * Per-key token buckets for the secret-write rate limit (PROTOCOL §9). Pure:
 * the caller passes the time, so no timers are started and tests control it.
 */

const MINUTE_MS = 60_000;

interface Bucket {
  tokens: number;
  updatedMs: number;
  ratePerMinute: number;
}

/** What {@link KeyRateLimiter.take} (or another limiter) decided. */
export type RateLimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** A wait in milliseconds as a `Retry-After` value: whole seconds, rounded up, at least 1. */
/** Takes a token for a key: {@link KeyRateLimiter} in memory, or a fleet's buckets shared in its database. */
export interface WriteRateLimiter {
  take(key: string, ratePerMinute: number, nowMs: number): RateLimitDecision | Promise<RateLimitDecision>;
}

export function retryAfterSeconds(waitMs: number): number {
  return Math.max(1, Math.ceil(waitMs / 1000));
}

/**
 * A token bucket per string key: capacity `ratePerMinute`, refilled at
 * `ratePerMinute` tokens per minute, one token per request. Buckets that
 * have refilled completely are indistinguishable from new ones and are
 * dropped, so memory follows the keys active in the last minute.
 */
export class KeyRateLimiter implements WriteRateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private takesSinceSweep = 0;
  private sizeAfterSweep = 0;

  /**
   * Number of buckets currently held. Full ones may linger until the next
   * sweep, but never more than about twice the keys used within a refill time, plus 64.
   */
  get size(): number {
    return this.buckets.size;
  }

  /**
   * Takes one token from `key`'s bucket.
   *
   * @param ratePerMinute - capacity and refill per minute; positive. A changed
   *   rate applies at once (tokens above the new capacity are dropped).
   * @param nowMs - the current time in milliseconds (e.g. `Date.now()`); a
   *   clock that goes back refills nothing.
   * @returns `allowed: false` with the whole seconds, at least 1, until one
   *   token is back (the `Retry-After` header).
   */
  take(key: string, ratePerMinute: number, nowMs: number): RateLimitDecision {
    if (!(ratePerMinute > 0) || !Number.isFinite(ratePerMinute)) {
      throw new RangeError(`ratePerMinute must be a positive number, got ${ratePerMinute}`);
    }
    this.maybeSweep(nowMs);
    const bucket = this.buckets.get(key);
    const tokens = bucket === undefined ? ratePerMinute : refilled(bucket, ratePerMinute, nowMs);
    if (tokens >= 1) {
      this.buckets.set(key, { tokens: tokens - 1, updatedMs: nowMs, ratePerMinute });
      return { allowed: true };
    }
    this.buckets.set(key, { tokens, updatedMs: nowMs, ratePerMinute });
    return { allowed: false, retryAfterSeconds: retryAfterSeconds(((1 - tokens) * MINUTE_MS) / ratePerMinute) };
  }

  /** Drops every bucket that is full again at `nowMs`. `take` calls it often enough on its own. */
  sweep(nowMs: number): void {
    for (const [key, bucket] of this.buckets) {
      if (refilled(bucket, bucket.ratePerMinute, nowMs) >= bucket.ratePerMinute) {
        this.buckets.delete(key);
      }
    }
    this.takesSinceSweep = 0;
    this.sizeAfterSweep = this.buckets.size;
  }

  private maybeSweep(nowMs: number): void {
    // Sweeping after as many takes as buckets survived the last sweep keeps the
    // cost per take constant on average and the map under twice the live buckets.
    this.takesSinceSweep += 1;
    if (this.takesSinceSweep >= Math.max(64, this.sizeAfterSweep)) {
      this.sweep(nowMs);
    }
  }
}

function refilled(bucket: Bucket, ratePerMinute: number, nowMs: number): number {
  const elapsedMs = Math.max(0, nowMs - bucket.updatedMs);
  return Math.min(ratePerMinute, bucket.tokens + (elapsedMs * ratePerMinute) / MINUTE_MS);
}
