import { appendJsonPath, formatJsonPath } from './json-path.js';

describe('formatJsonPath', () => {
  it.each<[ReadonlyArray<string | number>, string]>([
    [[], ''],
    [['tenant'], 'tenant'],
    [['services', 'shop', 'configs', 'a.b'], 'services.shop.configs["a.b"]'],
    [['services', 'shop', 'keys', 1], 'services.shop.keys[1]'],
    [['flags', 'new-checkout', 'ab', 'cohorts', 0, 'percentage'], 'flags["new-checkout"].ab.cohorts[0].percentage'],
    [['_private', '$x', 'a1'], '_private.$x.a1'],
    [['1abc'], '["1abc"]'],
    [[''], '[""]'],
    [['say "hi"\n'], '["say \\"hi\\"\\n"]'],
    [[0, 'a'], '[0].a'],
  ])('%j → %s', (segments, expected) => {
    expect(formatJsonPath(segments)).toBe(expected);
  });

  it('appends to a formatted path', () => {
    expect(appendJsonPath('', 'services')).toBe('services');
    expect(appendJsonPath('services', 'shop')).toBe('services.shop');
    expect(appendJsonPath('services.shop.configs', 'db.host')).toBe('services.shop.configs["db.host"]');
    expect(appendJsonPath('keys', 3)).toBe('keys[3]');
  });
});
