import { streamsToShed } from './rebalancer.js';

const replica = (id: string, streams: number) => ({ id, streams, revisions: {}, seenAt: 0 });

describe('streamsToShed', () => {
  it('sheds nothing alone, or within tolerance above the mean', () => {
    expect(streamsToShed(500, 'me', [replica('me', 500)], 0.1, 50)).toBe(0);
    expect(streamsToShed(105, 'me', [replica('me', 105), replica('b', 95)], 0.1, 50)).toBe(0);
  });

  it('sheds down to the mean, at most a batch at a time (LaunchDarkly Relay: 257 against 51)', () => {
    expect(streamsToShed(257, 'me', [replica('me', 257), replica('b', 51)], 0.1, 50)).toBe(50);
    expect(streamsToShed(257, 'me', [replica('me', 257), replica('b', 51)], 0.1, 500)).toBe(257 - 154);
  });

  it('counts its own streams as given, not as the fleet last saw them', () => {
    expect(streamsToShed(30, 'me', [replica('me', 0), replica('b', 10)], 0.1, 50)).toBe(10);
  });
});
