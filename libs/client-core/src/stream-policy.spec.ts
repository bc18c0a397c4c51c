import { Backoff } from './backoff.js';
import { decideStreamFailure, fallbackPollDelayMs, serviceWaitMs, type StreamPolicySettings } from './stream-policy.js';

const settings: StreamPolicySettings = {
  streamErrorThreshold: 3,
  streamCooldownMs: 60_000,
  ttlMs: 30_000,
  backoffMinMs: 1000,
  random: () => 0,
};

describe('decideStreamFailure', () => {
  it('retries with the backoff, then falls back to polling at the threshold, once', () => {
    const backoff = new Backoff({ minMs: 1000, maxMs: 30_000, healthyMs: 60_000, random: () => 0 });
    const decisions = [1, 2, 3, 4].map((n) => decideStreamFailure(backoff.fail(n), undefined, false, settings));
    expect(decisions).toEqual([
      { type: 'retry', delayMs: 1000 },
      { type: 'retry', delayMs: 2000 },
      { type: 'fallback', delayMs: 60_000, entered: true },
      { type: 'fallback', delayMs: 60_000, entered: false },
    ]);
  });

  it('enters the fallback again when the failure ends a connected stream', () => {
    const step = { failures: 5, delayMs: 8000, afterHealthy: false };
    expect(decideStreamFailure(step, undefined, true, settings)).toEqual({
      type: 'fallback',
      delayMs: 60_000,
      entered: true,
    });
  });

  it('waits as long as the service asked, and never less than the backoff', () => {
    const step = { failures: 1, delayMs: 1000, afterHealthy: false };
    expect(decideStreamFailure(step, 5000, true, settings)).toEqual({ type: 'wait', delayMs: 5000 });
    expect(decideStreamFailure(step, 10, true, settings)).toEqual({ type: 'wait', delayMs: 1000 });
  });
});

describe('fallbackPollDelayMs and serviceWaitMs', () => {
  it('backs the fallback polls off from backoffMinMs up to the TTL', () => {
    expect([0, 1, 2, 10].map((n) => fallbackPollDelayMs(n, settings))).toEqual([1000, 2000, 4000, 30_000]);
  });

  it('takes the longer of Retry-After and until, capped', () => {
    expect(serviceWaitMs(2000, undefined, 0, 300_000)).toBe(2000);
    expect(serviceWaitMs(2000, 10_000, 1000, 300_000)).toBe(9000);
    expect(serviceWaitMs(undefined, 10_000_000, 0, 300_000)).toBe(300_000);
    expect(serviceWaitMs(undefined, undefined, 0, 300_000)).toBe(0);
  });
});
