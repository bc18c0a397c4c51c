import { streamsToShed } from './rebalancer.js';

const replica = (id: string, streams: number) => ({ id, streams, revisions: {}, seenAt: 0 });

describe('streamsToShed', () => {
  it('sheds nothing alone, or within tolerance above the mean', () => {
    expect(streamsToShed(500, 'me', [replica('me', 500)], 0.1, 50)).toBe(0);
    expect(streamsToShed(105, 'me', [replica('me', 105), replica('b', 95)], 0.1, 50)).toBe(0);
  });

  it('sheds nothing within one stream of the mean: whole streams cannot be more even', () => {
    expect(streamsToShed(1, 'me', [replica('b', 0), replica('c', 0)], 0.05, 1000)).toBe(0);
    expect(streamsToShed(2, 'me', [replica('b', 1), replica('c', 1)], 0.05, 1000)).toBe(0);
    expect(streamsToShed(2, 'me', [replica('b', 0), replica('c', 0)], 0.05, 1000)).toBe(2);
  });

  it('sheds its excess times n / (n - 1), at most a batch at a time (LaunchDarkly Relay: 257 against 51)', () => {
    expect(streamsToShed(257, 'me', [replica('me', 257), replica('b', 51)], 0.1, 50)).toBe(50);
    // Mean 154: of 206 streams shed, a round-robin balancer sends 103 back: 154 each.
    expect(streamsToShed(257, 'me', [replica('me', 257), replica('b', 51)], 0.1, 500)).toBe(206);
    // Three replicas, one empty after a restart: 1500 - 1000 = 500 over, 750 shed, 250 come back.
    expect(streamsToShed(1500, 'me', [replica('b', 1500), replica('c', 0)], 0.05, 1000)).toBe(750);
    // Never more than it holds.
    expect(streamsToShed(10, 'me', [replica('b', 0), replica('c', 0)], 0.05, 1000)).toBe(10);
  });

  it('counts its own streams as given, not as the fleet last saw them', () => {
    expect(streamsToShed(30, 'me', [replica('me', 0), replica('b', 10)], 0.1, 50)).toBe(20);
  });
});
