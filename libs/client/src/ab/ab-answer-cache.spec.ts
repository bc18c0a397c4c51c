import { AbAnswerCache, abAttributePairs, abEntryBytes, AB_ENTRY_OVERHEAD_BYTES } from './ab-answer-cache.js';
import { AB_CACHE_DEFAULTS, resolveAbCache, type ResolvedAbCache } from './ab-cache-options.js';

class Clock {
  nowMs = 1_000_000;
  now(): number {
    return this.nowMs;
  }
}

type Attributes = Record<string, string | null | undefined>;

const sent = (attributes: Attributes): number => Object.values(attributes).filter((v) => typeof v === 'string').length;

function cacheOf(limits: Partial<ResolvedAbCache> = {}) {
  const clock = new Clock();
  const cache = new AbAnswerCache({ ...AB_CACHE_DEFAULTS, ...limits }, clock);
  cache.moveTo(1);
  /** Stores flag `flag`'s answer for user `u` with `attributes` (strings only), at `revision`. */
  const put = (flag: string, answer: boolean, attributes: Record<string, string> = {}, userId = 'u', revision = 1) =>
    cache.set(revision, flag, userId, abAttributePairs(attributes), answer);
  const ask = (flag: string, attributes: Attributes = {}, userId = 'u') =>
    cache.get(flag, userId, attributes, sent(attributes));
  return { cache, clock, put, ask };
}

describe('AbAnswerCache', () => {
  it('keeps answers of its revision; a new revision drops them all at once', () => {
    const { cache, put, ask } = cacheOf();
    put('a', true);
    put('b', false);
    expect([ask('a'), ask('b'), ask('c')]).toEqual([true, false, undefined]);
    cache.moveTo(2);
    expect([cache.size, cache.bytes, cache.invalidations]).toEqual([0, 0, 1]);
    expect(ask('a')).toBeUndefined();
    cache.moveTo(2);
    expect(cache.invalidations).toBe(1);
  });

  it('ignores an answer asked at a revision the cache has left', () => {
    const { cache, put, ask } = cacheOf();
    cache.moveTo(2);
    put('a', true, {}, 'u', 1);
    expect(ask('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('compares attributes as data: any order, unset ones ignored; another value, name, user or number of them is another answer', () => {
    const { cache, put, ask } = cacheOf();
    put('a', true, { country: 'DE', plan: 'pro' });
    put('a', false, { country: 'FR', plan: 'pro' }); // the same user id, other attributes: kept apart
    expect(ask('a', { plan: 'pro', country: 'DE' })).toBe(true);
    expect(ask('a', { country: 'DE', seats: null, plan: 'pro', tier: undefined })).toBe(true);
    expect(ask('a', { country: 'FR', plan: 'pro' })).toBe(false);
    expect(ask('a', { country: 'DE' })).toBeUndefined();
    expect(ask('a', { country: 'DE', plan: 'pro', seats: '3' })).toBeUndefined();
    expect(ask('a', { country: 'DE', tier: 'pro' })).toBeUndefined();
    expect(ask('a', { country: 'DE', plan: 'pro' }, 'v')).toBeUndefined();
    expect(cache.size).toBe(2);
  });

  it('drops an answer once it is maxAgeMs old, on its clock', () => {
    const { cache, clock, put, ask } = cacheOf({ maxAgeMs: 1000 });
    put('a', true);
    clock.nowMs += 999;
    expect(ask('a')).toBe(true);
    clock.nowMs += 1;
    expect(ask('a')).toBeUndefined();
    expect([cache.size, cache.bytes, cache.expirations]).toEqual([0, 0, 1]);
  });

  it('evicts the least recently used past maxEntries, across users', () => {
    const { cache, put, ask } = cacheOf({ maxEntries: 2 });
    put('a', true);
    put('b', true, {}, 'v');
    expect(ask('a')).toBe(true); // a is now the most recently used
    put('c', true, { country: 'DE' });
    expect([ask('a'), ask('b', {}, 'v'), ask('c', { country: 'DE' })]).toEqual([true, undefined, true]);
    expect([cache.size, cache.evictions]).toEqual([2, 1]);
  });

  it("evicts one answer among a user's others, and drops the user once none is left", () => {
    const { cache, put, ask } = cacheOf({ maxEntries: 3 });
    put('a', true);
    put('b', false);
    put('c', true);
    expect([ask('a'), ask('c')]).toEqual([true, true]); // b is now the least recently used
    put('d', true, {}, 'v');
    expect([ask('a'), ask('b'), ask('c'), ask('d', {}, 'v')]).toEqual([true, undefined, true, true]);
    put('e', true, {}, 'w'); // a goes
    put('f', true, {}, 'w'); // c goes: u holds nothing now
    expect([ask('a'), ask('c'), ask('e', {}, 'w'), ask('f', {}, 'w')]).toEqual([undefined, undefined, true, true]);
    put('a', false); // u comes back, another answer
    expect([ask('a'), cache.size, cache.evictions]).toEqual([false, 3, 4]);
  });

  it('evicts the least recently used past maxBytes, counting each answer once', () => {
    const bytes = abEntryBytes('a', 'u', []);
    const { cache, put, ask } = cacheOf({ maxBytes: 2 * bytes });
    put('a', true);
    put('a', false); // replaced, not counted twice
    put('b', true);
    expect([cache.size, cache.bytes, ask('a')]).toEqual([2, 2 * bytes, false]);
    put('c', true);
    expect([ask('b'), ask('a'), ask('c')]).toEqual([undefined, false, true]);
    expect(cache.bytes).toBe(2 * bytes);
  });

  it('estimates an answer as the overhead plus 2 bytes per character of flag key, user id and attributes', () => {
    expect(abEntryBytes('flag', 'u-1', abAttributePairs({ country: 'DE' }))).toBe(
      AB_ENTRY_OVERHEAD_BYTES + 2 * (4 + 3 + 7 + 2),
    );
  });

  it('does not keep an answer larger than maxBytes on its own', () => {
    const { cache, put } = cacheOf({ maxBytes: AB_ENTRY_OVERHEAD_BYTES + 10 });
    put('x'.repeat(6), true);
    expect([cache.size, cache.bytes]).toEqual([0, 0]);
  });
});

describe('resolveAbCache', () => {
  it('is on with the documented defaults unless false', () => {
    expect(AB_CACHE_DEFAULTS).toEqual({ maxAgeMs: 60_000, maxEntries: 10_000, maxBytes: 8_388_608 });
    expect(resolveAbCache(undefined)).toEqual(AB_CACHE_DEFAULTS);
    expect(resolveAbCache(true)).toEqual(AB_CACHE_DEFAULTS);
    expect(resolveAbCache({ maxAgeMs: 500 })).toEqual({ ...AB_CACHE_DEFAULTS, maxAgeMs: 500 });
    expect(resolveAbCache(false)).toBeUndefined();
  });

  it.each([
    ['off', 'abCache must be false, true or an object'],
    [{ maxAgeMs: 0 }, 'abCache.maxAgeMs must be a positive number of milliseconds'],
    [{ maxEntries: 1.5 }, 'abCache.maxEntries must be a positive integer'],
    [{ maxBytes: -1 }, 'abCache.maxBytes must be a positive integer of bytes'],
  ])('refuses %p, naming the option', (value, message) => {
    expect(() => resolveAbCache(value as never)).toThrow(expect.objectContaining({ code: 'VANE_INVALID_ARGUMENT' }));
    expect(() => resolveAbCache(value as never)).toThrow(message);
  });
});
