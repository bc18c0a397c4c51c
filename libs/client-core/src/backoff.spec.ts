import fc from 'fast-check';
import { Backoff, backoffDelayMs, parseRetryAfterMs } from './backoff.js';

describe('backoffDelayMs', () => {
  const settings = (random: number) => ({ minMs: 1000, maxMs: 30_000, random: () => random });

  it('doubles from minMs to maxMs without jitter when random is 0', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 20].map((n) => backoffDelayMs(n, settings(0)))).toEqual([
      1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000,
    ]);
  });

  it('takes up to half off at random', () => {
    expect(backoffDelayMs(0, settings(0.999999))).toBe(500);
    expect(backoffDelayMs(3, settings(0.5))).toBe(6000);
  });

  it('always stays within [base/2, base] and never exceeds maxMs', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -5, max: 1000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        (attempt, r, minMs, extra) => {
          const maxMs = minMs + extra;
          const base = Math.min(maxMs, minMs * 2 ** Math.min(Math.max(0, attempt), 31));
          const d = backoffDelayMs(attempt, { minMs, maxMs, random: () => r });
          expect(d).toBeGreaterThanOrEqual(Math.floor(base / 2));
          expect(d).toBeLessThanOrEqual(maxMs);
          expect(Number.isInteger(d)).toBe(true);
        },
      ),
    );
  });
});

describe('parseRetryAfterMs', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfterMs('3', 0)).toBe(3000);
    expect(parseRetryAfterMs(' 1.5 ', 0)).toBe(1500);
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(parseRetryAfterMs('Sun, 22 Nov 2026 10:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfterMs('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
  });

  it('ignores what it cannot read', () => {
    expect(parseRetryAfterMs(undefined, 0)).toBeUndefined();
    expect(parseRetryAfterMs('soon', 0)).toBeUndefined();
  });
});

describe('Backoff', () => {
  const backoff = (): Backoff => new Backoff({ minMs: 1000, maxMs: 30_000, healthyMs: 60_000, random: () => 0 });

  it('grows on consecutive failures, opened or not, until a connection proves healthy', () => {
    const b = backoff();
    expect(b.fail(0)).toEqual({ failures: 1, delayMs: 1000, afterHealthy: false });
    b.opened(1000);
    // Accepted, then cut after 59.999 s: not healthy, the count goes on.
    expect(b.fail(60_999)).toEqual({ failures: 2, delayMs: 2000, afterHealthy: false });
    b.opened(63_000);
    expect(b.healthy(122_999)).toBe(false);
    expect(b.healthy(123_000)).toBe(true);
    expect(b.fail(123_000)).toEqual({ failures: 1, delayMs: 1000, afterHealthy: true });
  });

  it('never resets on a failure without an open connection, and reset() forgets everything', () => {
    const b = backoff();
    for (let i = 0; i < 6; i++) b.fail(i * 100_000);
    expect(b.failures).toBe(6);
    expect(b.fail(10 ** 9).delayMs).toBe(30_000);
    b.reset();
    expect(b.failures).toBe(0);
    expect(b.fail(0).failures).toBe(1);
  });
});
