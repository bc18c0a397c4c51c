import { ManualClock } from './clock.js';
import { SessionTokens } from './session-tokens.js';

describe('SessionTokens', () => {
  const claims = {
    slug: 'shop',
    trust: 'cluster',
    subject: 'system:serviceaccount:shop:api',
    keyType: 'secret' as const,
  };

  it('issues a session that verifies for its service until exactly its expiry', async () => {
    const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
    const sessions = new SessionTokens(clock, 60_000);
    const issued = await sessions.issue(claims);
    expect(issued.expiresAt).toBe('2026-11-22T10:01:00Z');
    expect(await sessions.verify(issued.token, 'shop')).toMatchObject(claims);
    expect(await sessions.verify(issued.token, 'other')).toBeUndefined();
    clock.advance(59_999);
    expect(await sessions.verify(issued.token, 'shop')).toBeDefined();
    clock.advance(1);
    expect(await sessions.verify(issued.token, 'shop')).toBeUndefined();
  });

  it('refuses a session signed by another server (another key)', async () => {
    const clock = new ManualClock();
    const token = (await new SessionTokens(clock, 60_000).issue(claims)).token;
    expect(await new SessionTokens(clock, 60_000).verify(token, 'shop')).toBeUndefined();
  });
});
