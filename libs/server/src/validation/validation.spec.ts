import * as v from 'valibot';
import {
  membersInOrder,
  AB_OPERATORS,
  ValidationError,
  checkSchema,
  parseKeyType,
  parseSecretValue,
  describeType,
  formatTimestamp,
  isValidKey,
  isValidSlug,
  keyTypeOf,
  parseAbRule,
  parseApiKey,
  parseConfigValue,
  parseFlagDefinition,
  parseFlagPatch,
  applyFlagPatch,
  parseInteger,
  parseKey,
  parseSecretType,
  parseSecretWrite,
  parseServiceKind,
  parseSlug,
  parseTenantPatch,
  parseTimestamp,
} from './index.js';

/** Runs `action`, expects a ValidationError, returns it. */
function rejection(action: () => unknown): ValidationError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error('expected a ValidationError, nothing was thrown');
}

describe('ValidationError', () => {
  it('carries code, path and problem, and prefixes the message with the path', () => {
    const error = new ValidationError('flags.x', 'must be a boolean, got a string');
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe('VANE_LOCAL_INVALID_INPUT');
    expect(error.name).toBe('ValidationError');
    expect(error.path).toBe('flags.x');
    expect(error.problem).toBe('must be a boolean, got a string');
    expect(error.message).toBe('flags.x: must be a boolean, got a string');
  });

  it('is just the problem when the path is empty', () => {
    expect(new ValidationError('', 'must be an object').message).toBe('must be an object');
  });
});

describe('describeType', () => {
  it.each<[unknown, string]>([
    [undefined, 'nothing'],
    [null, 'null'],
    [[], 'an array'],
    [{}, 'an object'],
    ['x', 'a string'],
    [1.5, 'a number'],
    [Number.NaN, 'a non-finite number (NaN)'],
    [true, 'a boolean'],
    [() => 1, 'a function'],
  ])('%p → %s', (value, expected) => {
    expect(describeType(value)).toBe(expected);
  });
});

describe('keys', () => {
  it.each(['a', 'new-checkout', 'db.pool.max', 'A_b-9.z', 'x'.repeat(256), '__proto__'])('accepts %s', (key) => {
    expect(isValidKey(key)).toBe(true);
    expect(parseKey(key, 'k', 'flag')).toBe(key);
  });

  it.each(['', 'x'.repeat(257), 'a b', 'a/b', 'é', 'a:b'])('refuses %p', (key) => {
    expect(isValidKey(key)).toBe(false);
    const error = rejection(() => parseKey(key, 'flags.x', 'secret'));
    expect(error.path).toBe('flags.x');
    expect(error.problem).toBe(`a secret key must be 1–256 characters of [A-Za-z0-9._-], got ${key.length} characters`);
  });

  it('names the type of a non-string key', () => {
    expect(rejection(() => parseKey(5, 'key', 'config')).message).toBe(
      'key: a config key must be a string, got a number',
    );
  });
});

describe('slugs', () => {
  it.each(['shop', 'a', 'my-shop-2', 'x'.repeat(63)])('accepts %s', (slug) => {
    expect(isValidSlug(slug)).toBe(true);
    expect(parseSlug(slug, 'services')).toBe(slug);
  });

  it.each(['', 'Shop', '-shop', 'shop-', 'sh_op', 'x'.repeat(64), 'a.b'])('refuses %p', (slug) => {
    expect(isValidSlug(slug)).toBe(false);
    expect(() => parseSlug(slug, 's')).toThrow(ValidationError);
  });
});

describe('parseTimestamp', () => {
  it.each<[string, string]>([
    ['2026-11-22T10:00:00Z', '2026-11-22T10:00:00Z'],
    ['2026-11-22t10:00:00z', '2026-11-22T10:00:00Z'],
    ['2026-11-22T10:00:00.000Z', '2026-11-22T10:00:00Z'],
    ['2026-11-22T10:00:00.25Z', '2026-11-22T10:00:00.250Z'],
    ['2026-11-22T10:00:00.123456789Z', '2026-11-22T10:00:00.123Z'],
    ['2026-11-22T12:30:00+02:30', '2026-11-22T10:00:00Z'],
    ['2026-11-22T05:00:00-05:00', '2026-11-22T10:00:00Z'],
    ['2026-01-01T00:30:00+01:00', '2025-12-31T23:30:00Z'],
    ['2028-02-29T00:00:00Z', '2028-02-29T00:00:00Z'],
    ['2000-02-29T00:00:00Z', '2000-02-29T00:00:00Z'],
    ['0050-06-01T00:00:00Z', '0050-06-01T00:00:00Z'],
    ['2026-11-22T10:00:00-00:00', '2026-11-22T10:00:00Z'],
  ])('%s → %s', (input, expected) => {
    expect(parseTimestamp(input, 't')).toBe(expected);
  });

  it('accepts null (unbounded)', () => {
    expect(parseTimestamp(null, 't')).toBeNull();
  });

  it.each([
    '2026-11-22',
    '2026-11-22T10:00:00',
    '2026-11-22 10:00:00Z',
    'tomorrow',
    '',
    '2026-13-01T00:00:00Z',
    '2026-02-29T00:00:00Z',
    '1900-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-00-10T00:00:00Z',
    '2026-11-22T24:00:00Z',
    '2026-11-22T10:60:00Z',
    '2026-12-31T23:59:60Z',
    '2026-11-22T10:00:00+24:00',
    '2026-11-22T10:00:00+0200',
    '2026-11-22T10:00Z',
    '9999-12-31T23:00:00-02:00',
    '0000-01-01T00:00:00+01:00',
  ])('refuses %p', (input) => {
    const error = rejection(() => parseTimestamp(input, 'flags.x.starts_at'));
    expect(error.path).toBe('flags.x.starts_at');
  });

  it('explains what it expected and what it got', () => {
    expect(rejection(() => parseTimestamp('2026-11-22', 'ends_at')).message).toBe(
      'ends_at: must be an RFC 3339 date-time with Z or an offset, e.g. "2026-11-22T10:00:00Z"; got "2026-11-22"',
    );
    expect(rejection(() => parseTimestamp(1_700_000_000, 'ends_at')).problem).toMatch(/or null; got a number$/);
    expect(rejection(() => parseTimestamp('2026-02-30T00:00:00Z', 'ends_at')).problem).toBe(
      'is not a valid date-time: "2026-02-30T00:00:00Z"',
    );
  });

  it('formatTimestamp keeps milliseconds only when they are not zero', () => {
    expect(formatTimestamp(new Date(Date.UTC(2026, 10, 22, 10)))).toBe('2026-11-22T10:00:00Z');
    expect(formatTimestamp(new Date(Date.UTC(2026, 10, 22, 10, 0, 0, 7)))).toBe('2026-11-22T10:00:00.007Z');
  });
});

describe('parseConfigValue', () => {
  it.each<[unknown]>([
    ['db.internal'],
    [''],
    [5],
    [5.5],
    [-0.25],
    [0],
    [true],
    [false],
    [null],
    [[]],
    [['a', 1, null, { nested: { ok: [1] } }, [true]]],
  ])('accepts %j', (value) => {
    expect(parseConfigValue(value, 'v')).toEqual(value);
  });

  it('refuses an object with the documented problem text', () => {
    const error = rejection(() => parseConfigValue({ a: 1 }, 'services.shop.configs["a.b"]'));
    expect(error.message).toBe('services.shop.configs["a.b"]: objects are not config values');
    expect(error.problem).toBe('objects are not config values');
  });

  it.each<[unknown, string, string]>([
    [Number.NaN, 'v', 'must be JSON, got a non-finite number (NaN)'],
    [Number.POSITIVE_INFINITY, 'v', 'must be JSON, got a non-finite number (Infinity)'],
    [[1, [2, Number.NaN]], 'v[1][1]', 'must be JSON, got a non-finite number (NaN)'],
    [[{ f: () => 1 }], 'v[0].f', 'must be JSON, got a function'],
    [undefined, 'v', 'a config value is required (null is allowed)'],
    [BigInt(1), 'v', 'must be JSON, got a bigint'],
  ])('refuses %p at %s', (value, path, problem) => {
    const error = rejection(() => parseConfigValue(value, 'v'));
    expect(error.path).toBe(path);
    expect(error.problem).toBe(problem);
  });
});

describe('parseAbRule', () => {
  const rule = {
    percentage: 50,
    salt: 'np-1',
    cohorts: [{ conditions: [{ attribute: 'country', op: 'in', values: ['DE', 'FR'] }], percentage: 100 }],
  };

  it('accepts a full rule', () => {
    expect(parseAbRule(rule, 'ab')).toEqual(rule);
  });

  it('defaults cohorts to [] and ignores unknown members', () => {
    expect(parseAbRule({ percentage: 0, salt: '', future: 1 }, 'ab')).toEqual({ percentage: 0, salt: '', cohorts: [] });
    expect(parseAbRule({ percentage: 12.5, salt: 's', cohorts: null }, 'ab').cohorts).toEqual([]);
  });

  it.each(AB_OPERATORS)('accepts the %s operator', (op) => {
    const parsed = parseAbRule(
      { percentage: 1, salt: 's', cohorts: [{ conditions: [{ attribute: 'a', op, values: [] }], percentage: 1 }] },
      'ab',
    );
    expect(parsed.cohorts[0]!.conditions[0]!.op).toBe(op);
  });

  it.each<[unknown, string, string]>([
    [null, 'ab', 'must be an object, got null'],
    [{ salt: 's' }, 'ab.percentage', 'must be a number from 0 to 100, got nothing'],
    [{ percentage: 101, salt: 's' }, 'ab.percentage', 'must be a number from 0 to 100, got 101'],
    [{ percentage: -1, salt: 's' }, 'ab.percentage', 'must be a number from 0 to 100, got -1'],
    [{ percentage: '50', salt: 's' }, 'ab.percentage', 'must be a number from 0 to 100, got a string'],
    [{ percentage: 50 }, 'ab.salt', 'must be a string, got nothing'],
    [{ percentage: 50, salt: 's', cohorts: {} }, 'ab.cohorts', 'must be an array, got an object'],
    [
      { percentage: 50, salt: 's', cohorts: [{ percentage: 5 }] },
      'ab.cohorts[0].conditions',
      'must be an array, got nothing',
    ],
    [
      { percentage: 50, salt: 's', cohorts: [{ conditions: [] }] },
      'ab.cohorts[0].percentage',
      'must be a number from 0 to 100, got nothing',
    ],
    [
      {
        percentage: 50,
        salt: 's',
        cohorts: [{ conditions: [{ attribute: 'a', op: 'like', values: [] }], percentage: 5 }],
      },
      'ab.cohorts[0].conditions[0].op',
      'must be one of eq, neq, in, not_in, starts_with, ends_with, contains; got "like"',
    ],
    [
      {
        percentage: 50,
        salt: 's',
        cohorts: [{ conditions: [{ attribute: 'a', op: 'eq', values: ['x', 2] }], percentage: 5 }],
      },
      'ab.cohorts[0].conditions[0].values[1]',
      'must be a string, got a number',
    ],
    [
      { percentage: 50, salt: 's', cohorts: [{ conditions: [{ op: 'eq', values: [] }], percentage: 5 }] },
      'ab.cohorts[0].conditions[0].attribute',
      'must be a string, got nothing',
    ],
  ])('refuses %j at %s', (value, path, problem) => {
    const error = rejection(() => parseAbRule(value, 'ab'));
    expect([error.path, error.problem]).toEqual([path, problem]);
  });
});

describe('parseFlagDefinition', () => {
  it('defaults the window to unbounded and leaves out a missing or null rule', () => {
    expect(parseFlagDefinition({ is_enabled: true }, 'f')).toStrictEqual({
      is_enabled: true,
      starts_at: null,
      ends_at: null,
    });
    expect(parseFlagDefinition({ is_enabled: false, ab: null, is_active: true }, 'f')).toStrictEqual({
      is_enabled: false,
      starts_at: null,
      ends_at: null,
    });
  });

  it('normalises the window and keeps the rule', () => {
    expect(
      parseFlagDefinition(
        {
          is_enabled: true,
          starts_at: '2026-11-01T01:00:00+01:00',
          ends_at: '2026-12-01T00:00:00.500Z',
          ab: { percentage: 5, salt: 'x' },
        },
        'f',
      ),
    ).toStrictEqual({
      is_enabled: true,
      starts_at: '2026-11-01T00:00:00Z',
      ends_at: '2026-12-01T00:00:00.500Z',
      ab: { percentage: 5, salt: 'x', cohorts: [] },
    });
  });

  it.each<[unknown, string, string]>([
    [[], 'flag', 'must be an object, got an array'],
    [{}, 'flag.is_enabled', 'must be a boolean, got nothing'],
    [{ is_enabled: 'yes' }, 'flag.is_enabled', 'must be a boolean, got a string'],
    [
      { is_enabled: true, starts_at: '2026-12-01T00:00:00Z', ends_at: '2026-11-01T00:00:00Z' },
      'flag.ends_at',
      'must be after starts_at (2026-12-01T00:00:00Z), got 2026-11-01T00:00:00Z',
    ],
    [
      { is_enabled: true, starts_at: '2026-11-01T01:00:00+01:00', ends_at: '2026-11-01T00:00:00Z' },
      'flag.ends_at',
      'must be after starts_at (2026-11-01T00:00:00Z), got 2026-11-01T00:00:00Z',
    ],
    [{ is_enabled: true, ab: 5 }, 'flag.ab', 'must be an object, got a number'],
  ])('refuses %j at %s', (value, path, problem) => {
    const error = rejection(() => parseFlagDefinition(value, 'flag'));
    expect([error.path, error.problem]).toEqual([path, problem]);
  });
});

describe('flag patches', () => {
  const flag = {
    is_enabled: true,
    starts_at: '2026-11-01T00:00:00Z',
    ends_at: null,
    ab: { percentage: 5, salt: 'x', cohorts: [] },
  };

  it('keeps only the members given, normalised', () => {
    expect(parseFlagPatch({ ab: null, starts_at: '2026-11-01T01:00:00+01:00' }, 'f')).toStrictEqual({
      starts_at: '2026-11-01T00:00:00Z',
      ab: null,
    });
    expect(parseFlagPatch({ is_enabled: false, ends_at: undefined }, 'f')).toStrictEqual({ is_enabled: false });
  });

  it('applies what it names and nothing else; `ab: null` removes the rule', () => {
    expect(applyFlagPatch(flag, { is_enabled: false }, 'f')).toStrictEqual({ ...flag, is_enabled: false });
    expect(applyFlagPatch(flag, { ab: null, starts_at: null }, 'f')).toStrictEqual({
      is_enabled: true,
      starts_at: null,
      ends_at: null,
    });
  });

  it.each<[unknown, string, string]>([
    [{}, 'f', 'must name at least one of is_enabled, starts_at, ends_at, ab'],
    [{ enabled: true }, 'f', 'unknown member "enabled"; allowed: is_enabled, starts_at, ends_at, ab'],
    [{ is_enabled: 1 }, 'f.is_enabled', 'must be a boolean, got a number'],
    [{ ab: 'rule' }, 'f.ab', 'must be an object, got a string'],
  ])('refuses %j at %s', (value, path, problem) => {
    const error = rejection(() => parseFlagPatch(value, 'f'));
    expect([error.path, error.problem]).toEqual([path, problem]);
  });

  it('checks the flag it makes as a whole', () => {
    const error = rejection(() => applyFlagPatch(flag, { ends_at: '2026-10-01T00:00:00Z' }, 'f'));
    expect([error.path, error.problem]).toEqual([
      'f.ends_at',
      'must be after starts_at (2026-11-01T00:00:00Z), got 2026-10-01T00:00:00Z',
    ]);
  });
});

describe('secrets', () => {
  it('parseSecretType defaults to text and names the allowed values', () => {
    expect(parseSecretType(undefined, 'type')).toBe('text');
    expect(parseSecretType('file', 'type')).toBe('file');
    expect(rejection(() => parseSecretType('binary', 'type')).message).toBe(
      'type: must be one of text, file; got "binary"',
    );
    expect(rejection(() => parseSecretType(null, 'type')).message).toBe('type: must be one of text, file; got null');
  });

  it('parseSecretWrite reads value and type and never echoes a value', () => {
    expect(parseSecretWrite({ value: 'rk_live_1' }, '')).toEqual({ value: 'rk_live_1', type: 'text' });
    expect(parseSecretWrite({ value: '', type: 'file' }, '')).toEqual({ value: '', type: 'file' });
    expect(rejection(() => parseSecretWrite({ value: 42 }, '')).message).toBe(
      'value: a secret value must be a string, got a number',
    );
  });
});

describe('parseServiceKind', () => {
  it.each(['backend', 'frontend', 'batch_job', 'edge-2'])('accepts %s', (kind) => {
    expect(parseServiceKind(kind, 'kind')).toBe(kind);
  });

  it.each(['', 'Backend', 'x'.repeat(65), 'a b'])('refuses %p', (kind) => {
    expect(() => parseServiceKind(kind, 'kind')).toThrow(ValidationError);
  });

  it('names a wrong type', () => {
    expect(rejection(() => parseServiceKind(7, 'kind')).message).toBe(
      'kind: a service kind must be a string, got a number',
    );
  });
});

describe('parseTenantPatch', () => {
  it('keeps only the members present', () => {
    expect(parseTenantPatch({}, 'tenant')).toStrictEqual({});
    expect(parseTenantPatch({ ab_addon: false }, 'tenant')).toStrictEqual({ ab_addon: false });
    expect(
      parseTenantPatch(
        { overdue_days: 0, ab_addon: true, quarantined_until: '2026-11-22T11:00:00+01:00', write_rate_per_minute: 1 },
        'tenant',
      ),
    ).toStrictEqual({
      overdue_days: 0,
      ab_addon: true,
      quarantined_until: '2026-11-22T10:00:00Z',
      write_rate_per_minute: 1,
    });
    expect(parseTenantPatch({ quarantined_until: null }, 'tenant')).toStrictEqual({ quarantined_until: null });
  });

  it.each<[unknown, string, string]>([
    [null, 'tenant', 'must be an object, got null'],
    [{ overdue_days: -1 }, 'tenant.overdue_days', 'must be at least 0, got -1'],
    [{ overdue_days: 1.5 }, 'tenant.overdue_days', 'must be an integer, got 1.5'],
    [{ overdue_days: '3' }, 'tenant.overdue_days', 'must be an integer, got a string'],
    [{ write_rate_per_minute: 0 }, 'tenant.write_rate_per_minute', 'must be at least 1, got 0'],
    [{ ab_addon: 1 }, 'tenant.ab_addon', 'must be a boolean, got a number'],
    [
      { quarantined_until: 'soon' },
      'tenant.quarantined_until',
      expect.stringContaining('RFC 3339') as unknown as string,
    ],
    [
      { overdue: 3 },
      'tenant',
      'unknown member "overdue"; allowed: overdue_days, ab_addon, quarantined_until, write_rate_per_minute',
    ],
    [
      { a: 1, b: 2, ab_addon: true },
      'tenant',
      'unknown members "a", "b"; allowed: overdue_days, ab_addon, quarantined_until, write_rate_per_minute',
    ],
  ])('refuses %j at %s', (value, path, problem) => {
    const error = rejection(() => parseTenantPatch(value, 'tenant'));
    expect([error.path, error.problem]).toEqual([path, problem]);
  });

  it('refuses integers beyond the safe range', () => {
    expect(() => parseInteger(2 ** 53, 'n', 0)).toThrow('n: must be an integer, got 9007199254740992');
  });
});

describe('API keys', () => {
  it.each(['svs_shop_local_secret', 'svp_a', `svs_${'x'.repeat(200)}`, 'svp_A-b_9'])('accepts %s', (key) => {
    expect(parseApiKey(key, 'k')).toBe(key);
  });

  it('refuses a prefix with nothing after it', () => {
    expect(() => parseApiKey('svs_', 'k')).toThrow(ValidationError);
  });

  it.each(['svx_abc', 'SVS_abc', 'svs_a b', `svs_${'x'.repeat(201)}`, 'svs_secret!'])(
    'refuses %p without echoing it',
    (key) => {
      const error = rejection(() => parseApiKey(key, 'services.shop.keys[1]'));
      expect(error.message).toBe(
        'services.shop.keys[1]: an API key must be "svs_" or "svp_" followed by 1–200 characters of [A-Za-z0-9_-]',
      );
      expect(error.message).not.toContain(key);
    },
  );

  it('names a wrong type', () => {
    expect(rejection(() => parseApiKey(null, 'k')).message).toBe('k: an API key must be a string, got null');
  });

  it('tells the key type', () => {
    expect(keyTypeOf('svs_x')).toBe('secret');
    expect(keyTypeOf('svp_x')).toBe('public');
  });
});

describe('the valibot schemas behind the parsers', () => {
  it("never pass on valibot's default message, which quotes the value", () => {
    const error = rejection(() => checkSchema(v.object({ token: v.literal('x') }), { token: 'svs_leaked' }, 'body'));
    expect(error.path).toBe('body.token');
    expect(error.problem).toBe('must be "x", got a string');
    expect(error.message).not.toContain('svs_leaked');
  });

  it('name the path of a non-JSON value deep inside a config value', () => {
    expect(rejection(() => parseConfigValue([1, { a: [Number.POSITIVE_INFINITY] }], 'value')).message).toBe(
      'value[1].a[0]: must be JSON, got a non-finite number (Infinity)',
    );
    expect(rejection(() => parseConfigValue(undefined, 'value')).problem).toBe(
      'a config value is required (null is allowed)',
    );
  });

  it('treat a member given as undefined as absent', () => {
    expect(parseTenantPatch({ ab_addon: undefined, overdue_days: 2 }, 'tenant')).toStrictEqual({ overdue_days: 2 });
    expect(parseFlagDefinition({ is_enabled: true, ab: undefined }, 'f')).toStrictEqual({
      is_enabled: true,
      starts_at: null,
      ends_at: null,
    });
  });

  it('see a "__proto__" member (valibot\'s record would drop it)', () => {
    expect(rejection(() => parseTenantPatch(JSON.parse('{"__proto__": {"ab_addon": true}}'), 'tenant')).problem).toBe(
      'unknown member "__proto__"; allowed: overdue_days, ab_addon, quarantined_until, write_rate_per_minute',
    );
    const flag = parseFlagDefinition(JSON.parse('{"is_enabled": false, "__proto__": {"is_enabled": true}}'), 'f');
    expect(flag).toStrictEqual({ is_enabled: false, starts_at: null, ends_at: null });
    expect(Object.getPrototypeOf(flag)).toBe(Object.prototype);
  });

  it("refuse arrays where objects belong (valibot's object takes them)", () => {
    expect(rejection(() => parseSecretWrite(['x'], '')).problem).toBe('must be an object, got an array');
    expect(rejection(() => parseAbRule({ percentage: 1, salt: 's', cohorts: [[]] }, 'ab')).message).toBe(
      'ab.cohorts[0]: must be an object, got an array',
    );
  });

  it('check key types and secret values without echoing a value', () => {
    expect(parseKeyType('public', 'type')).toBe('public');
    expect(rejection(() => parseKeyType('admin', 'type')).message).toBe(
      'type: must be "secret" or "public", got "admin"',
    );
    expect(rejection(() => parseKeyType(1, 'type')).message).toBe('type: must be "secret" or "public", got a number');
    expect(parseSecretValue('', 'value')).toBe('');
    expect(rejection(() => parseSecretValue(['hunter2'], 'value')).message).toBe(
      'value: a secret value must be a string, got an array',
    );
  });
});

describe('membersInOrder', () => {
  const entries = { a: v.string(), b: v.number(), c: v.boolean() };

  it("gives the entries' members in the order asked for", () => {
    expect(membersInOrder(entries, ['c', 'a', 'b'])).toEqual(['c', 'a', 'b']);
  });

  it('throws when the order misses a member or names one the entries lack (a cast past the compiler)', () => {
    expect(() => membersInOrder(entries, ['c', 'a'] as unknown as readonly ['a', 'b', 'c'])).toThrow(
      'members out of step: [c, a] for [a, b, c]',
    );
    expect(() => membersInOrder(entries, ['a', 'b', 'd'] as unknown as readonly ['a', 'b', 'c'])).toThrow(
      'members out of step',
    );
  });
});
