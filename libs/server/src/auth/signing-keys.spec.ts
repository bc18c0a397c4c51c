import { Keyring } from '../sealing/keyring.js';
import { SigningKeys } from './signing-keys.js';

const DAY = 24 * 60 * 60 * 1000;

describe('SigningKeys', () => {
  const ring = Keyring.generate().key;
  const other = Keyring.generate().key;

  it('derives the same key on every replica holding the root key, and a different one per purpose', () => {
    const now = (): number => 10 * DAY + 5;
    const a = new SigningKeys('session', () => new Keyring([ring]), now);
    const b = new SigningKeys('session', () => new Keyring([ring, other]), now);
    expect(a.current()).toEqual(b.current());
    expect(a.current().id).toBe(`${ring.id}-10`);
    expect(b.find(a.current().id)).toEqual(a.current().key);
    expect(new SigningKeys('console', () => new Keyring([ring]), now).current().key).not.toEqual(a.current().key);
  });

  it('turns each period; a key verifies through the next period and no longer', () => {
    let nowMs = 10 * DAY;
    const keys = new SigningKeys(
      'session',
      () => new Keyring([ring]),
      () => nowMs,
    );
    const first = keys.current();
    nowMs = 11 * DAY;
    expect(keys.current().id).not.toBe(first.id);
    expect(keys.find(first.id)).toEqual(first.key);
    nowMs = 12 * DAY;
    expect(keys.find(first.id)).toBeUndefined();
    // A replica whose clock runs a period ahead signed it; beyond that, refused.
    expect(keys.find(`${ring.id}-13`)).toBeDefined();
    expect(keys.find(`${ring.id}-14`)).toBeUndefined();
  });

  it('refuses a key of a root key the keyring does not hold, and ids it did not make', () => {
    const keys = new SigningKeys(
      'session',
      () => new Keyring([ring]),
      () => 10 * DAY,
    );
    expect(keys.find(`${other.id}-10`)).toBeUndefined();
    for (const id of ['', 'process', 'rk_zz-10', `${ring.id}-`, `${ring.id}-1e3`])
      expect(keys.find(id)).toBeUndefined();
  });

  it('after a root-key rotation signs with the new key and still verifies what the old one signed', () => {
    let keyring = new Keyring([ring]);
    const keys = new SigningKeys(
      'session',
      () => keyring,
      () => 10 * DAY,
    );
    const before = keys.current();
    keyring = keyring.withPrimary(other);
    expect(keys.current().id).toBe(`${other.id}-10`);
    expect(keys.find(before.id)).toEqual(before.key);
  });

  it('without a keyring, signs with a random key of this process only', () => {
    const a = new SigningKeys('session', () => undefined);
    const b = new SigningKeys('session', () => undefined);
    expect(a.current().id).toBe('process');
    expect(a.find('process')).toEqual(a.current().key);
    expect(b.current().key).not.toEqual(a.current().key);
  });
});
