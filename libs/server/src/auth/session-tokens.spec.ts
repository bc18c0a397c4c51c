import { Keyring } from '../sealing/keyring.js';
import { SigningKeys } from './signing-keys.js';
import { ManualClock } from '../domain/clock.js';
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

describe('SessionTokens with keys derived from the root key', () => {
  const claims = { slug: 'shop', trust: 'cluster', subject: 'sa', keyType: 'secret' as const };

  it('a session one replica issued verifies on another holding the same root key, not on one without it', async () => {
    const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
    const root = Keyring.generate().key;
    const replica = (keyring: Keyring): SessionTokens =>
      new SessionTokens(
        clock,
        60_000,
        new SigningKeys(
          'session',
          () => keyring,
          () => clock.now(),
        ),
      );
    const token = (await replica(new Keyring([root])).issue(claims)).token;
    expect(await replica(new Keyring([root])).verify(token, 'shop')).toMatchObject(claims);
    expect(await replica(new Keyring([Keyring.generate().key])).verify(token, 'shop')).toBeUndefined();
  });

  it('refuses a lifetime longer than its signing key period', () => {
    const clock = new ManualClock();
    expect(() => new SessionTokens(clock, 2 * 24 * 60 * 60 * 1000)).toThrow(RangeError);
  });
});
