import { KeyRateLimiter } from './rate-limiter.js';

describe('KeyRateLimiter', () => {
  const t0 = 1_700_000_000_000;

  it('allows a full bucket of requests, then refuses with Retry-After', () => {
    const limiter = new KeyRateLimiter();
    for (let i = 0; i < 60; i++) expect(limiter.take('k', 60, t0)).toEqual({ allowed: true });
    expect(limiter.take('k', 60, t0)).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });

  it('refills at the rate per minute', () => {
    const limiter = new KeyRateLimiter();
    for (let i = 0; i < 6; i++) limiter.take('k', 6, t0);
    expect(limiter.take('k', 6, t0)).toEqual({ allowed: false, retryAfterSeconds: 10 });
    expect(limiter.take('k', 6, t0 + 4_000)).toEqual({ allowed: false, retryAfterSeconds: 6 });
    expect(limiter.take('k', 6, t0 + 9_999)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(limiter.take('k', 6, t0 + 10_000)).toEqual({ allowed: true });
    expect(limiter.take('k', 6, t0 + 10_000)).toEqual({ allowed: false, retryAfterSeconds: 10 });
    // A minute later the bucket is full again, not fuller: capacity is the rate.
    for (let i = 0; i < 6; i++) expect(limiter.take('k', 6, t0 + 200_000)).toEqual({ allowed: true });
    expect(limiter.take('k', 6, t0 + 200_000).allowed).toBe(false);
  });

  it('rounds the wait up to whole seconds, at least one', () => {
    const limiter = new KeyRateLimiter();
    expect(limiter.take('slow', 1, t0)).toEqual({ allowed: true });
    expect(limiter.take('slow', 1, t0)).toEqual({ allowed: false, retryAfterSeconds: 60 });
    expect(limiter.take('slow', 1, t0 + 30_500)).toEqual({ allowed: false, retryAfterSeconds: 30 });
    expect(limiter.take('slow', 1, t0 + 59_001)).toEqual({ allowed: false, retryAfterSeconds: 1 });

    const fast = new KeyRateLimiter();
    for (let i = 0; i < 600; i++) fast.take('f', 600, t0);
    expect(fast.take('f', 600, t0)).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });

  it('keeps one bucket per key', () => {
    const limiter = new KeyRateLimiter();
    expect(limiter.take('a', 1, t0).allowed).toBe(true);
    expect(limiter.take('a', 1, t0).allowed).toBe(false);
    expect(limiter.take('b', 1, t0).allowed).toBe(true);
  });

  it('applies a lowered rate at once and never refills backwards in time', () => {
    const limiter = new KeyRateLimiter();
    limiter.take('k', 60, t0);
    expect(limiter.take('k', 2, t0).allowed).toBe(true);
    expect(limiter.take('k', 2, t0).allowed).toBe(true);
    expect(limiter.take('k', 2, t0).allowed).toBe(false);
    expect(limiter.take('k', 2, t0 - 60_000)).toEqual({ allowed: false, retryAfterSeconds: 30 });
  });

  it('refuses a rate that is not a positive number', () => {
    const limiter = new KeyRateLimiter();
    expect(() => limiter.take('k', 0, t0)).toThrow(RangeError);
    expect(() => limiter.take('k', Number.NaN, t0)).toThrow(RangeError);
    expect(() => limiter.take('k', Number.POSITIVE_INFINITY, t0)).toThrow(RangeError);
  });

  it('drops buckets that are full again, so memory stays bounded', () => {
    const limiter = new KeyRateLimiter();
    for (let i = 0; i < 10_000; i++) limiter.take(`key-${i}`, 60, t0 + i);
    expect(limiter.size).toBeLessThanOrEqual(10_000);
    limiter.sweep(t0 + 10_000 + 1_000);
    expect(limiter.size).toBe(0);

    // Without explicit sweeps: a new key every 10 ms, each full again after 1 s,
    // keeps about 100 live buckets; the map stays under twice that plus 64.
    const steady = new KeyRateLimiter();
    let largest = 0;
    for (let i = 0; i < 100_000; i++) {
      steady.take(`key-${i}`, 60, t0 + i * 10);
      largest = Math.max(largest, steady.size);
    }
    expect(largest).toBeLessThanOrEqual(2 * 100 + 64 + 1);
  });

  it('keeps a bucket that is still refilling', () => {
    const limiter = new KeyRateLimiter();
    limiter.take('k', 60, t0);
    limiter.sweep(t0 + 999);
    expect(limiter.size).toBe(1);
    limiter.sweep(t0 + 1_000);
    expect(limiter.size).toBe(0);
  });
});
