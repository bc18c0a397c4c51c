import { jsonEqual } from './json-equal.js';

describe('jsonEqual', () => {
  it.each([
    [1, 1, true],
    [1, '1', false],
    [null, null, true],
    [null, undefined, false],
    [[1, 'a'], [1, 'a'], true],
    [[1, 'a'], ['a', 1], false],
    [[1], [1, 1], false],
    [[], {}, false],
    [{ a: [1] }, { a: [1] }, true],
    [{ a: 1 }, { b: 1 }, false],
  ])('jsonEqual(%j, %j) is %s', (a, b, expected) => {
    expect(jsonEqual(a, b)).toBe(expected);
  });
});
