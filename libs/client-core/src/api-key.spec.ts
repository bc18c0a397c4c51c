import { assertValidApiKey, keyTypeOf } from './api-key.js';
import { InvalidArgumentError } from './errors.js';

describe('key type', () => {
  it.each([
    ['svs_abc', 'sk'],
    ['svp_abc', 'pk'],
    ['sva_abc', ''],
    [undefined, ''],
  ] as const)('%p → %p', (key, type) => {
    expect(keyTypeOf(key)).toBe(type);
  });
});

describe('assertValidApiKey', () => {
  it.each(['svs_shop_local_secret', 'svp_shop_local_public'])('accepts %p', (key) => {
    expect(() => assertValidApiKey(key)).not.toThrow();
  });

  it.each([
    ['sk_live_0123456789abcdef'],
    ['svs_'],
    ['svs_has space 0123456789'],
    ['svs_naïve0123456789'],
    [''],
    [42],
    [undefined],
  ])('refuses %p with a redacted message', (key) => {
    let caught: unknown;
    try {
      assertValidApiKey(key);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InvalidArgumentError);
    if (typeof key === 'string' && key.length > 8) expect((caught as Error).message).not.toContain(key);
  });
});
