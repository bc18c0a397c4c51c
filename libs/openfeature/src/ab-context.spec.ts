import { abContextOf } from './ab-context.js';

describe('abContextOf', () => {
  it('no targetingKey: an anonymous user (null)', () => {
    expect(abContextOf({ country: 'DE' })).toBeNull();
  });

  it('the targetingKey is the user id, other string entries the attributes; null and undefined dropped', () => {
    const result = abContextOf({ targetingKey: 'u1', country: 'DE', plan: undefined as unknown as string, team: null });
    expect(result).toMatchObject({ ok: true, context: { userId: 'u1' } });
    expect(result?.ok && { ...result.context.attributes }).toEqual({ country: 'DE' });
  });

  it('the batch key is the same for the same user and attributes in any order, different otherwise', () => {
    const key = (ctx: Record<string, string>) => {
      const r = abContextOf(ctx);
      return r?.ok ? r.batchKey : undefined;
    };
    expect(key({ targetingKey: 'u', a: '1', b: '2' })).toBe(key({ b: '2', targetingKey: 'u', a: '1' }));
    expect(key({ targetingKey: 'u', a: '1' })).not.toBe(key({ targetingKey: 'u', a: '2' }));
    expect(key({ targetingKey: 'u', a: '1' })).not.toBe(key({ targetingKey: 'v', a: '1' }));
    expect(key({ targetingKey: 'u', 'a","b': 'c' })).not.toBe(key({ targetingKey: 'u', a: 'b","c' }));
  });

  it('keeps an attribute named __proto__ as an attribute', () => {
    const result = abContextOf(JSON.parse('{"targetingKey":"u","__proto__":"x"}') as Record<string, string>);
    expect(result?.ok && Object.entries(result.context.attributes!)).toEqual([['__proto__', 'x']]);
  });

  it.each([
    [{ targetingKey: 'u', age: 3 }, 'attribute "age" must be a string, got number'],
    [{ targetingKey: 'u', tags: ['a'] }, 'attribute "tags" must be a string, got array'],
    [{ targetingKey: 'u', at: new Date(0) }, 'attribute "at" must be a string, got Date'],
    [{ targetingKey: '' }, 'targetingKey must be a non-empty string, got string'],
  ])('refuses %j, naming the attribute and its type, never its value', (context, message) => {
    expect(abContextOf(context)).toEqual({ ok: false, message });
  });
});
