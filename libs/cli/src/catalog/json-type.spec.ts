import { jsonTypeOf } from './json-type.js';

describe('jsonTypeOf', () => {
  it.each([
    ['a string', 'x', 'string'],
    ['a number', 5.5, 'number'],
    ['a boolean', false, 'boolean'],
    ['null', null, 'null'],
    ['strings', ['a', 'b'], 'readonly string[]'],
    ['a mixed array, sorted', [1, 'a', true], 'readonly (boolean | number | string)[]'],
    ['an empty array', [], 'readonly JsonValue[]'],
    ['nested arrays', [[1], [2, null]], 'readonly (readonly (null | number)[] | readonly number[])[]'],
    ['objects in an array', [{ b: 1 }, {}], 'readonly { readonly [key: string]: JsonValue }[]'],
  ])('%s', (_name, value, type) => {
    expect(jsonTypeOf(value)).toBe(type);
  });

  it('never writes a value, nor the member names of an object in it', () => {
    expect(jsonTypeOf(['rk_live_SECRET', { 'p@ss': 'hunter2' }])).not.toMatch(/SECRET|hunter2/);
  });
});
