import type { StandardSchemaV1 } from '@standard-schema/spec';
import { type } from 'arktype';
import * as v from 'valibot';
import { z as z4 } from 'zod';
import { z as z3 } from 'zod3';
import { ConfigInvalidError, InvalidArgumentError } from '../errors.js';
import type { ConfigValue } from '@vane/client-core';
import { SchemaValidator } from './schema-validator.js';

/** The same three validators written with each library. */
interface Trio {
  poolMax: StandardSchemaV1; // coerces a numeric string to an integer >= 1
  url: StandardSchemaV1; // a URL string
  timeout: StandardSchemaV1; // optional number with a default of 5000
}

const libraries: [string, Trio][] = [
  [
    'zod 3',
    {
      poolMax: z3.coerce.number().int().min(1),
      url: z3.string().url(),
      timeout: z3.number().default(5000),
    },
  ],
  [
    'zod 4',
    {
      poolMax: z4.coerce.number().int().min(1),
      url: z4.url(),
      timeout: z4.number().default(5000),
    },
  ],
  [
    'valibot',
    {
      poolMax: v.pipe(v.union([v.number(), v.string()]), v.transform(Number), v.integer(), v.minValue(1)),
      url: v.pipe(v.string(), v.url()),
      timeout: v.optional(v.number(), 5000),
    },
  ],
  [
    'arktype',
    {
      poolMax: type('number.integer >= 1').or(type('string.integer.parse').pipe((n: number) => n)),
      url: type('string.url'),
      timeout: type('number | undefined').pipe((n) => n ?? 5000),
    },
  ],
];

const map = (o: Record<string, ConfigValue>): ReadonlyMap<string, ConfigValue> => new Map(Object.entries(o));

describe.each(libraries)('SchemaValidator with %s', (_name, trio) => {
  const schema = { configs: { 'db.pool.max': trio.poolMax, 'api.url': trio.url, 'http.timeout': trio.timeout } };

  it('never echoes a rejected value in an issue or the start error (a config can be a connection string)', () => {
    // Not a URL (no scheme, a space): every validator rejects it, and quotes it.
    const connection = 'hunter2-TOPSECRET at db.internal 5432/shop';
    const validator = new SchemaValidator(schema);
    let caught: unknown;
    try {
      validator.initial(map({ 'db.pool.max': -73519, 'api.url': connection }), 3);
    } catch (err) {
      caught = err;
    }
    const error = caught as ConfigInvalidError;
    expect(error).toBeInstanceOf(ConfigInvalidError);
    const texts = [error.message, String(error), ...error.invalid.flatMap((i) => i.issues)];
    for (const text of texts) {
      expect(text).not.toContain('73519');
      expect(text).not.toContain('hunter2');
      expect(text).not.toContain('db.internal');
    }
    expect(error.invalid.map((i) => i.key).sort()).toEqual(['api.url', 'db.pool.max']);
    // Later updates: the same for the issues listeners and logs get.
    const later = new SchemaValidator(schema);
    later.initial(map({ 'db.pool.max': 5, 'api.url': 'https://ok.example/' }), 1);
    const result = later.update(map({ 'db.pool.max': -73519, 'api.url': connection }), 2);
    const issues = result.invalid.flatMap((i) => i.issues).join(' | ');
    expect(issues).not.toMatch(/73519|hunter2|db\.internal/);
    expect(result.invalid).toHaveLength(2);
  });

  it('serves transformed outputs and defaults, and passes keys outside the schema through', () => {
    const validator = new SchemaValidator(schema);
    const out = validator.initial(map({ 'db.pool.max': '20', 'api.url': 'https://x.example/', other: [1] }), 1);
    expect(out.get('db.pool.max')).toBe(20);
    expect(out.get('api.url')).toBe('https://x.example/');
    expect(out.get('http.timeout')).toBe(5000);
    expect(out.get('other')).toEqual([1]);
    expect(validator.invalid.size).toBe(0);
  });

  it('fails the start listing every missing or invalid required key', () => {
    const validator = new SchemaValidator(schema);
    let caught: unknown;
    try {
      validator.initial(map({ 'db.pool.max': -1 }), 3);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigInvalidError);
    const error = caught as ConfigInvalidError;
    expect(error.code).toBe('VANE_CONFIG_INVALID');
    expect(error.invalid.map((i) => i.key).sort()).toEqual(['api.url', 'db.pool.max']);
    expect(error.invalid.find((i) => i.key === 'api.url')?.issues[0]).toBe('missing (required)');
    expect(error.message).toContain('"db.pool.max"');
  });

  it('keeps the last valid value when an update is invalid, and recovers', () => {
    const validator = new SchemaValidator(schema);
    validator.initial(map({ 'db.pool.max': 10, 'api.url': 'https://a.example/' }), 1);
    const bad = validator.update(map({ 'db.pool.max': -1, 'api.url': 'https://b.example/', x: 'y' }), 2);
    expect(bad.configs.get('db.pool.max')).toBe(10);
    expect(bad.configs.get('api.url')).toBe('https://b.example/');
    expect(bad.configs.get('x')).toBe('y');
    expect(bad.invalid).toEqual([{ key: 'db.pool.max', issues: expect.any(Array), revision: 2, keptLastValid: true }]);
    expect(bad.invalid[0]!.issues.length).toBeGreaterThan(0);
    expect(validator.invalid.has('db.pool.max')).toBe(true);

    // Unchanged invalid value: not reported again, last valid value still served.
    const same = validator.update(map({ 'db.pool.max': -1, 'api.url': 'https://b.example/' }), 3);
    expect(same.invalid).toEqual([]);
    expect(same.configs.get('db.pool.max')).toBe(10);

    const good = validator.update(map({ 'db.pool.max': '30', 'api.url': 'https://b.example/' }), 4);
    expect(good.configs.get('db.pool.max')).toBe(30);
    expect(good.recovered).toEqual(['db.pool.max']);
    expect(validator.invalid.size).toBe(0);
  });

  it('keeps a required key whose deletion fails its validator', () => {
    const validator = new SchemaValidator(schema);
    validator.initial(map({ 'db.pool.max': 10, 'api.url': 'https://a.example/' }), 1);
    const out = validator.update(map({ 'db.pool.max': 10 }), 2);
    expect(out.configs.get('api.url')).toBe('https://a.example/');
    expect(out.invalid.map((i) => i.key)).toEqual(['api.url']);
  });
});

describe('SchemaValidator', () => {
  it('validates only keys whose raw value changed', () => {
    let calls = 0;
    const counting: StandardSchemaV1<unknown, number> = {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate: (value) => {
          calls += 1;
          return typeof value === 'number' ? { value } : { issues: [{ message: 'not a number' }] };
        },
      },
    };
    const validator = new SchemaValidator({ configs: { a: counting } });
    validator.initial(map({ a: 1, b: 1 }), 1);
    validator.update(map({ a: 1, b: 2 }), 2);
    validator.update(map({ a: 1, b: 3 }), 3);
    expect(calls).toBe(1);
    validator.update(map({ a: 2 }), 4);
    expect(calls).toBe(2);
  });

  it('an invalid key that never had a valid value reads as missing', () => {
    const validator = new SchemaValidator({ configs: { a: z4.number().optional() } });
    validator.initial(map({}), 1);
    const out = validator.update(map({ a: 'nope' }), 2);
    expect(out.configs.has('a')).toBe(false);
    expect(out.invalid[0]).toMatchObject({ key: 'a', keptLastValid: false });
  });

  it('refuses an asynchronous validator at start, naming the key', () => {
    const asyncSchema = z4.string().refine(async () => true);
    const validator = new SchemaValidator({ configs: { 'api.url': asyncSchema } });
    expect(() => validator.initial(map({ 'api.url': 'x' }), 1)).toThrow(InvalidArgumentError);
    expect(() =>
      new SchemaValidator({ configs: { 'api.url': asyncSchema } }).initial(map({ 'api.url': 'x' }), 1),
    ).toThrow(/schema\.configs\["api\.url"\] validates asynchronously/);
  });

  it('refuses an entry that is not a Standard Schema, naming the key', () => {
    expect(() => new SchemaValidator({ configs: { k: {} as StandardSchemaV1 } })).toThrow(
      /schema\.configs\["k"\] is not a Standard Schema validator/,
    );
    expect(() => new SchemaValidator({ flags: 'x' as unknown as string[] })).toThrow(/schema\.flags/);
  });

  it('never puts a secret-looking token from an issue message in its output', () => {
    const echoing: StandardSchemaV1 = {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate: (value) => ({ issues: [{ message: `bad value ${String(value)}` }] }),
      },
    };
    const validator = new SchemaValidator({ configs: { k: echoing } });
    expect(() => validator.initial(map({ k: 'svs_live_abcdefghijklmnopqrstuvwxyz123456' }), 1)).toThrow(
      ConfigInvalidError,
    );
    try {
      new SchemaValidator({ configs: { k: echoing } }).initial(
        map({ k: 'svs_live_abcdefghijklmnopqrstuvwxyz123456' }),
        1,
      );
    } catch (err) {
      expect(String(err)).not.toContain('abcdefghijklmnopqrstuvwxyz123456');
    }
  });
});
