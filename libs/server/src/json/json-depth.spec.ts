import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth.js';

function nested(levels: number): unknown {
  return JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`);
}

describe('exceedsJsonDepth', () => {
  it.each([
    ['a scalar is within', 1, false],
    ['an empty array is within', [], false],
    [`${MAX_JSON_DEPTH} nested arrays are within`, nested(MAX_JSON_DEPTH), false],
    [`${MAX_JSON_DEPTH + 1} nested arrays exceed`, nested(MAX_JSON_DEPTH + 1), true],
    ['200,000 nested arrays exceed, without overflowing the stack', nested(200_000), true],
  ])('%s', (_name, value, expected) => {
    expect(exceedsJsonDepth(value, MAX_JSON_DEPTH)).toBe(expected);
  });

  it('counts objects and arrays alike, on any branch', () => {
    expect(exceedsJsonDepth({ a: [1, { b: [[]] }] }, 5)).toBe(false);
    expect(exceedsJsonDepth({ a: 1, z: [1, { b: [[[]]] }] }, 5)).toBe(true);
  });
});
