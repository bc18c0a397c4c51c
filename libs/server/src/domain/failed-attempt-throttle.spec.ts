import {
  DEFAULT_FAILED_ATTEMPT_THROTTLE,
  FailedAttemptThrottle,
  MemoryGuessLedger,
} from './failed-attempt-throttle.js';

describe('FailedAttemptThrottle', () => {
  const t0 = 1_700_000_000_000;
  const ADDRESS = '203.0.113.7';

  /** Fails `count` times at `nowMs`, checking first as the routes do. */
  function failMany(throttle: FailedAttemptThrottle, count: number, nowMs: number, address = ADDRESS): void {
    for (let i = 0; i < count; i++) {
      expect(throttle.check(address, nowMs)).toEqual({ allowed: true });
      throttle.fail(address, nowMs);
    }
  }

  it('lets the free wrong guesses through, then makes the address wait a second', () => {
    const throttle = new FailedAttemptThrottle();
    failMany(throttle, 5, t0);
    expect(throttle.check(ADDRESS, t0)).toEqual({ allowed: true }); // the 6th guess is checked
    throttle.fail(ADDRESS, t0);
    expect(throttle.check(ADDRESS, t0)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(throttle.check(ADDRESS, t0 + 999)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(throttle.check(ADDRESS, t0 + 1000)).toEqual({ allowed: true });
  });

  it('doubles the wait with every further wrong guess, up to maxDelayMs', () => {
    const throttle = new FailedAttemptThrottle();
    failMany(throttle, 5, t0);
    let now = t0;
    const waits: number[] = [];
    for (let i = 0; i < 10; i++) {
      throttle.fail(ADDRESS, now);
      const decision = throttle.check(ADDRESS, now);
      if (decision.allowed) throw new Error('expected a wait');
      waits.push(decision.retryAfterSeconds);
      now += decision.retryAfterSeconds * 1000; // the wait is over: the next guess is checked
      expect(throttle.check(ADDRESS, now)).toEqual({ allowed: true });
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 60, 60, 60, 60]);
  });

  it('neither counts nor lengthens anything while the address waits (the caller checks first)', () => {
    const throttle = new FailedAttemptThrottle();
    failMany(throttle, 6, t0);
    for (let i = 0; i < 100; i++) expect(throttle.check(ADDRESS, t0 + i).allowed).toBe(false);
    expect(throttle.check(ADDRESS, t0 + 1000)).toEqual({ allowed: true });
  });

  it('never keeps an address out for longer than maxDelayMs after its last wrong guess', () => {
    const throttle = new FailedAttemptThrottle();
    let now = t0;
    for (let i = 0; i < 1000; i++) {
      const decision = throttle.check(ADDRESS, now);
      if (!decision.allowed) {
        expect(decision.retryAfterSeconds).toBeLessThanOrEqual(60);
        now += decision.retryAfterSeconds * 1000;
      }
      throttle.fail(ADDRESS, now);
    }
    expect(throttle.check(ADDRESS, now + 60_000)).toEqual({ allowed: true });
  });

  it('forgets an address after forgetAfterMs without a wrong guess, not while it keeps guessing', () => {
    const ledger = new MemoryGuessLedger();
    const throttle = new FailedAttemptThrottle({}, ledger);
    failMany(throttle, 6, t0);
    expect(throttle.check(ADDRESS, t0 + 599_999)).toEqual({ allowed: true });
    throttle.fail(ADDRESS, t0 + 599_999); // the 7th wrong guess: a 2 s wait
    expect(throttle.check(ADDRESS, t0 + 600_000)).toEqual({ allowed: false, retryAfterSeconds: 2 });
    // Ten quiet minutes later the count starts afresh: five free guesses again.
    failMany(throttle, 5, t0 + 599_999 + 600_000);
    expect(ledger.size).toBe(1);
    // The ledger drops what the throttle has forgotten: last wrong guesses before the bound it is given.
    ledger.sweep(t0 + 599_999 + 600_001);
    expect(ledger.size).toBe(0);
  });

  it('keeps one count per address', () => {
    const throttle = new FailedAttemptThrottle();
    failMany(throttle, 6, t0);
    expect(throttle.check(ADDRESS, t0).allowed).toBe(false);
    expect(throttle.check('::1', t0)).toEqual({ allowed: true });
  });

  it('takes its settings, and refuses settings that would lock out for good or never throttle', () => {
    const strict = new FailedAttemptThrottle({ freeFailures: 0, baseDelayMs: 5000, maxDelayMs: 5000 });
    strict.fail(ADDRESS, t0);
    expect(strict.check(ADDRESS, t0)).toEqual({ allowed: false, retryAfterSeconds: 5 });
    for (const options of [
      { freeFailures: -1 },
      { freeFailures: 1.5 },
      { baseDelayMs: 0 },
      { maxDelayMs: 500 },
      { maxDelayMs: Number.POSITIVE_INFINITY },
      { forgetAfterMs: 60_000 },
    ]) {
      expect(() => new FailedAttemptThrottle(options)).toThrow(RangeError);
    }
    expect(DEFAULT_FAILED_ATTEMPT_THROTTLE).toEqual({
      freeFailures: 5,
      baseDelayMs: 1000,
      maxDelayMs: 60_000,
      forgetAfterMs: 600_000,
    });
  });

  it('remembers at most 10,000 addresses, forgetting the oldest first', () => {
    const ledger = new MemoryGuessLedger();
    const throttle = new FailedAttemptThrottle({}, ledger);
    for (let i = 0; i < 12_000; i++) throttle.fail(`10.0.${i >> 8}.${i & 255}`, t0 + i);
    expect(ledger.size).toBe(10_000);
    failMany(throttle, 5, t0 + 12_000, '10.0.0.0'); // among the first, forgotten: five free guesses again
  });
});
