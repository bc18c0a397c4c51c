import fc from 'fast-check';
import { exceedsJsonDepth, jsonEqual, redactKey } from './index.js';

describe('jsonEqual', () => {
  it('compares values, not text: member order does not matter, types do', () => {
    expect(jsonEqual({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual(5, '5')).toBe(false);
    expect(jsonEqual(5, 5.0)).toBe(true);
    expect(jsonEqual(null, [])).toBe(false);
    expect(jsonEqual([], {})).toBe(false);
    expect(jsonEqual({ a: undefined }, { b: undefined })).toBe(false);
  });

  it('agrees with comparing canonical serialisations, on any JSON value', () => {
    const canonical = (v: unknown): string =>
      JSON.stringify(v, (_k, x: unknown) =>
        x !== null && typeof x === 'object' && !Array.isArray(x)
          ? Object.fromEntries(Object.entries(x).sort(([p], [q]) => (p < q ? -1 : p > q ? 1 : 0)))
          : x,
      );
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        expect(jsonEqual(a, b)).toBe(canonical(a) === canonical(b));
        expect(jsonEqual(a, JSON.parse(JSON.stringify(a)))).toBe(true);
      }),
    );
  });
});

describe('exceedsJsonDepth', () => {
  it('counts nesting levels, scalars being 0', () => {
    expect(exceedsJsonDepth('x', 0)).toBe(false);
    expect(exceedsJsonDepth([], 0)).toBe(true);
    expect(exceedsJsonDepth([[1]], 2)).toBe(false);
    expect(exceedsJsonDepth([[1]], 1)).toBe(true);
    expect(exceedsJsonDepth({ a: { b: [] } }, 2)).toBe(true);
  });

  it('measures a value nested 100,000 deep without overflowing the stack', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(exceedsJsonDepth(deep, 100)).toBe(true);
  });
});

describe('redactKey', () => {
  it('keeps the prefix and the last four characters of a long key, only the prefix of a short one', () => {
    expect(redactKey('svs_shop_local_secret')).toBe('svs_…cret');
    expect(redactKey('svs_short')).toBe('svs_…');
    expect(redactKey('')).toBe('…');
  });
});
