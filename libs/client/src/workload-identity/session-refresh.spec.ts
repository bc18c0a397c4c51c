import { refreshDelayMs, refreshRetryDelayMs } from './session-refresh.js';

describe('refreshDelayMs', () => {
  const now = 1_000_000;
  it('refreshes marginMs before expiry', () => {
    expect(refreshDelayMs(now + 3_600_000, now, 60_000)).toBe(3_540_000);
  });
  it('refreshes halfway when less than twice the margin is left', () => {
    expect(refreshDelayMs(now + 60_000, now, 60_000)).toBe(30_000);
    expect(refreshDelayMs(now + 1_000, now, 60_000)).toBe(500);
  });
  it('is 0 once expired, or for an unparseable expiry', () => {
    expect(refreshDelayMs(now, now, 60_000)).toBe(0);
    expect(refreshDelayMs(now - 5, now, 60_000)).toBe(0);
    expect(refreshDelayMs(Number.NaN, now, 60_000)).toBe(0);
  });
  it('never exceeds what a Node timer takes', () => {
    expect(refreshDelayMs(now + 100 * 86_400_000, now, 60_000)).toBe(2 ** 31 - 1);
  });
});

describe('refreshRetryDelayMs', () => {
  it('retries after retryMs, never past the expiry', () => {
    expect(refreshRetryDelayMs(100_000, 0, 10_000)).toBe(10_000);
    expect(refreshRetryDelayMs(4_000, 0, 10_000)).toBe(4_000);
    expect(refreshRetryDelayMs(0, 10, 10_000)).toBe(0);
  });
});
