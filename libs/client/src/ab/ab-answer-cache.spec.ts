import { AbAnswerCache, abEntryBytes, AB_ENTRY_OVERHEAD_BYTES } from './ab-answer-cache.js';
import { AB_CACHE_DEFAULTS, resolveAbCache, type ResolvedAbCache } from './ab-cache-options.js';

class Clock {
  nowMs = 1_000_000;
  now(): number {
    return this.nowMs;
  }
}

function cacheOf(limits: Partial<ResolvedAbCache> = {}): { cache: AbAnswerCache; clock: Clock } {
  const clock = new Clock();
  const cache = new AbAnswerCache({ ...AB_CACHE_DEFAULTS, ...limits }, clock);
  cache.moveTo(1);
  return { cache, clock };
}

describe('AbAnswerCache', () => {
  it('keeps answers of its revision; a new revision drops them all at once', () => {
    const { cache } = cacheOf();
    cache.set(1, 'a', true);
    cache.set(1, 'b', false);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([true, false, undefined]);
    cache.moveTo(2);
    expect([cache.size, cache.bytes, cache.invalidations]).toEqual([0, 0, 1]);
    expect(cache.get('a')).toBeUndefined();
    cache.moveTo(2);
    expect(cache.invalidations).toBe(1);
  });

  it('ignores an answer asked at a revision the cache has left', () => {
    const { cache } = cacheOf();
    cache.moveTo(2);
    cache.set(1, 'a', true);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('drops an answer once it is maxAgeMs old, on its clock', () => {
    const { cache, clock } = cacheOf({ maxAgeMs: 1000 });
    cache.set(1, 'a', true);
    clock.nowMs += 999;
    expect(cache.get('a')).toBe(true);
    clock.nowMs += 1;
    expect(cache.get('a')).toBeUndefined();
    expect([cache.size, cache.bytes, cache.expirations]).toEqual([0, 0, 1]);
  });

  it('evicts the least recently used past maxEntries', () => {
    const { cache } = cacheOf({ maxEntries: 2 });
    cache.set(1, 'a', true);
    cache.set(1, 'b', true);
    expect(cache.get('a')).toBe(true); // a is now the most recently used
    cache.set(1, 'c', true);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([true, undefined, true]);
    expect([cache.size, cache.evictions]).toEqual([2, 1]);
  });

  it('evicts the least recently used past maxBytes, counting each key once', () => {
    const { cache } = cacheOf({ maxBytes: 2 * abEntryBytes('a') });
    cache.set(1, 'a', true);
    cache.set(1, 'a', false); // replaced, not counted twice
    cache.set(1, 'b', true);
    expect([cache.size, cache.bytes, cache.get('a')]).toEqual([2, 2 * abEntryBytes('a'), false]);
    cache.set(1, 'c', true);
    expect([cache.get('b'), cache.get('a'), cache.get('c')]).toEqual([undefined, false, true]);
    expect(cache.bytes).toBe(2 * abEntryBytes('a'));
  });

  it('does not keep an answer larger than maxBytes on its own', () => {
    const { cache } = cacheOf({ maxBytes: AB_ENTRY_OVERHEAD_BYTES + 10 });
    cache.set(1, 'x'.repeat(6), true);
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
