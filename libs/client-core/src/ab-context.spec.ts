import { InvalidArgumentError } from './errors.js';
import { abContextKey, normalizeAbContext, planAbEvaluation, readAbResults } from './ab-context.js';

describe('normalizeAbContext', () => {
  it('drops null and undefined attributes, keeps strings', () => {
    expect(normalizeAbContext({ userId: 'u1', attributes: { country: 'DE', plan: null, tier: undefined } })).toEqual({
      userId: 'u1',
      attributes: { country: 'DE' },
    });
  });

  it.each([
    [42, 'number'],
    [true, 'boolean'],
    [['a'], 'array'],
    [{ a: 1 }, 'object'],
    [new Date(0), 'Date'],
  ])('rejects a non-string attribute (%p) naming it and the type', (value, type) => {
    const run = () => normalizeAbContext({ userId: 'u1', attributes: { age: value as unknown as string } });
    expect(run).toThrow(InvalidArgumentError);
    expect(run).toThrow(`attribute "age" must be a string, got ${type}`);
  });

  it('keeps an attribute named __proto__ (from parsed JSON) and sends it', () => {
    const attributes = JSON.parse('{"__proto__": "x", "country": "DE"}') as Record<string, string>;
    const out = normalizeAbContext({ userId: 'u', attributes });
    expect(JSON.parse(JSON.stringify(out.attributes))).toEqual(JSON.parse('{"__proto__": "x", "country": "DE"}'));
    expect(Object.keys(out.attributes)).toEqual(['__proto__', 'country']);
    // A plain object (it crosses into bootstraps and React props), whose __proto__ is an own member, not the prototype.
    expect(Object.getPrototypeOf(out.attributes)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out.attributes, '__proto__')?.value).toBe('x');
  });

  it('requires a non-empty string userId', () => {
    expect(() => normalizeAbContext({ userId: '' })).toThrow(InvalidArgumentError);
    expect(() => normalizeAbContext({ userId: 7 as unknown as string })).toThrow('got number');
  });
});

describe('planAbEvaluation', () => {
  it('sends known keys once, never unknown ones', () => {
    const plan = planAbEvaluation(['a', 'x', 'a', 'b'], (k) => k !== 'x');
    expect(plan.batches).toEqual([['a', 'b']]);
    expect(plan.keys).toEqual(['a', 'x', 'b']);
  });

  it('splits more than 200 keys into calls of at most 200', () => {
    const keys = Array.from({ length: 450 }, (_, i) => `k${i}`);
    const plan = planAbEvaluation(keys, () => true);
    expect(plan.batches.map((b) => b.length)).toEqual([200, 200, 50]);
    expect(plan.batches.flat()).toEqual(keys);
  });

  it('plans no call when no key is known', () => {
    expect(planAbEvaluation(['x'], () => false).batches).toEqual([]);
  });

  it('refuses non-string keys', () => {
    expect(() => planAbEvaluation(['a', 1 as unknown as string], () => true)).toThrow(
      'keys[1] must be a string, got number',
    );
  });
});

describe('readAbResults', () => {
  it('reads booleans; anything missing or not true is false', () => {
    const into: Record<string, boolean> = {};
    readAbResults({ results: { a: true, b: false, c: 'true' } }, ['a', 'b', 'c', 'd'], into);
    expect(into).toEqual({ a: true, b: false, c: false, d: false });
  });

  it('reads nothing an object inherits, and nothing from a body that is not an object', () => {
    const into: Record<string, boolean> = {};
    readAbResults({ results: { a: true } }, ['a', 'constructor', 'toString', 'hasOwnProperty'], into);
    expect(into).toEqual({ a: true, constructor: false, toString: false, hasOwnProperty: false });
    readAbResults({ results: [true] }, ['0'], into);
    readAbResults(null, ['x'], into);
    expect([into['0'], into['x']]).toEqual([false, false]);
  });
});

describe('abContextKey', () => {
  it('is the same for the same user and attributes in any order, and differs otherwise', () => {
    const key = abContextKey('u-1', { country: 'DE', plan: 'pro' });
    expect(abContextKey('u-1', { plan: 'pro', country: 'DE' })).toBe(key);
    expect(
      abContextKey(
        'u-1',
        normalizeAbContext({ userId: 'u-1', attributes: { plan: 'pro', tier: null, country: 'DE' } }).attributes,
      ),
    ).toBe(key);
    expect(
      new Set([
        key,
        abContextKey('u-2', { country: 'DE', plan: 'pro' }),
        abContextKey('u-1', { country: 'DE', plan: 'free' }),
        abContextKey('u-1', { country: 'DE' }),
        abContextKey('u-1', { country: 'DE', plan: 'pro', x: '' }),
        // Names and values cannot be shifted into one another.
        abContextKey('u-1', { 'country","DE': 'plan' }),
        abContextKey('u-1","country', { DE: 'plan' }),
      ]).size,
    ).toBe(7);
  });
});
