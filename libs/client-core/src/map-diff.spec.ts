import { diffMaps } from './map-diff.js';

function diff(before: Record<string, number> | undefined, after: Record<string, number>): unknown[] {
  const calls: unknown[] = [];
  diffMaps(
    before && new Map(Object.entries(before)),
    new Map(Object.entries(after)),
    (a, b) => a === b,
    (key, a, b) => calls.push([key, a, b]),
  );
  return calls;
}

describe('diffMaps', () => {
  it("lists changed and deleted keys in the first map's order, then added keys", () => {
    expect(diff({ a: 1, b: 2, c: 3 }, { d: 4, c: 30, a: 1 })).toEqual([
      ['b', 2, undefined],
      ['c', 3, 30],
      ['d', undefined, 4],
    ]);
  });

  it('treats every key as new without a first map, and calls nothing for the same map', () => {
    expect(diff(undefined, { a: 1 })).toEqual([['a', undefined, 1]]);
    const same = new Map([['a', 1]]);
    const calls: string[] = [];
    diffMaps(
      same,
      same,
      () => false,
      (key) => calls.push(key),
    );
    expect(calls).toEqual([]);
  });

  it('asks `same` whether two values of a key are equal', () => {
    const calls: string[] = [];
    diffMaps(
      new Map([['a', { on: true, at: 1 }]]),
      new Map([['a', { on: true, at: 2 }]]),
      (x, y) => x.on === y.on,
      (key) => calls.push(key),
    );
    expect(calls).toEqual([]);
  });
});
