import { inspect } from 'node:util';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  DEFAULT_TENANT,
  type AbRule,
  type AuditEntry,
  emptyAccessState,
  type AuditRecord,
  type ConfigValue,
  type FlagDefinition,
  type JsonValue,
  type SecretRecord,
  type ServerData,
  type ServiceData,
  type TenantState,
} from '../domain/model.js';
import { SeedError } from './seed-error.js';
import { chainAuditEntry } from '../domain/audit-chain.js';
import { apiKeyRecord, hashApiKey, storedApiKey } from '../domain/api-key-hash.js';
import { VaneServerError } from '../errors/vane-server-error.js';
import { parseServerData, parseServerDataJson, readServerDataFile } from './seed-parser.js';
import { serializeServerData } from '../persistence/state-serializer.js';
import { AB_OPERATORS, SECRET_TYPES, ValidationError, formatTimestamp } from '../validation/index.js';

const NOW = new Date('2026-11-22T10:00:00Z');
const DEMO_SEED = join(__dirname, '..', '..', 'seeds', 'demo.seed.json');

/** Runs `action`, expects a SeedError, returns it. */
function seedError(action: () => unknown): SeedError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(SeedError);
    return error as SeedError;
  }
  throw new Error('expected a SeedError, nothing was thrown');
}

function parse(json: unknown): ServerData {
  return parseServerData(json, 'vane.seed.json', { now: NOW });
}

/** A minimal valid seed with one service, which `edit` may change. */
function seedWith(edit: (shop: Record<string, unknown>, root: Record<string, unknown>) => void): unknown {
  const shop: Record<string, unknown> = {
    kind: 'backend',
    keys: ['svs_shop_local_secret', 'svp_shop_local_public'],
    revoked_keys: [],
    configs: { 'db.host': 'localhost' },
    flags: { 'new-checkout': { is_enabled: true } },
    secrets: { 'stripe.api_key': { type: 'text', value: 'rk_test_123' } },
  };
  const root: Record<string, unknown> = { services: { shop } };
  edit(shop, root);
  return root;
}

describe('parseServerData', () => {
  it('reads the seed example of PROTOCOL §11', () => {
    const data = parse({
      tenant: { overdue_days: 0, ab_addon: true, quarantined_until: null },
      services: {
        shop: {
          kind: 'backend',
          keys: ['svs_shop_local_secret', 'svp_shop_local_public'],
          revoked_keys: [],
          configs: { 'db.host': 'localhost', 'db.pool.max': 10 },
          flags: {
            'new-checkout': {
              is_enabled: true,
              starts_at: null,
              ends_at: null,
              ab: { percentage: 50, salt: 'nc-1', cohorts: [] },
            },
          },
          secrets: {
            'stripe.api_key': { type: 'text', value: 'rk_test_123' },
            'tls.client_pem': { type: 'file', versions: ['pem-v1', 'pem-v2'] },
          },
        },
      },
    });
    expect(data.tenant).toEqual({ ...DEFAULT_TENANT });
    const shop = data.services.get('shop')!;
    expect(shop).toEqual<ServiceData>({
      project: 'default',
      kind: 'backend',
      keys: [apiKeyRecord('svs_shop_local_secret'), apiKeyRecord('svp_shop_local_public')],
      revoked_keys: [],
      configs: new Map<string, ConfigValue>([
        ['db.host', 'localhost'],
        ['db.pool.max', 10],
      ]),
      flags: new Map([
        [
          'new-checkout',
          { is_enabled: true, starts_at: null, ends_at: null, ab: { percentage: 50, salt: 'nc-1', cohorts: [] } },
        ],
      ]),
      secrets: new Map<string, SecretRecord>([
        [
          'stripe.api_key',
          { type: 'text', versions: [{ version: 1, value: 'rk_test_123', created_at: '2026-11-22T10:00:00Z' }] },
        ],
        [
          'tls.client_pem',
          {
            type: 'file',
            versions: [
              { version: 1, value: 'pem-v1', created_at: '2026-11-22T10:00:00Z' },
              { version: 2, value: 'pem-v2', created_at: '2026-11-22T10:00:00Z' },
            ],
          },
        ],
      ]),
      next_versions: new Map([
        ['stripe.api_key', 2],
        ['tls.client_pem', 3],
      ]),
      revision: 1,
      trusts: new Map(),
      data_keys: [],
    });
  });

  it('fills in every default', () => {
    const data = parse({ services: { shop: {} } });
    expect(data.tenant).toEqual({ ...DEFAULT_TENANT });
    expect(data.tenant).not.toBe(DEFAULT_TENANT);
    expect(data.services.get('shop')).toEqual<ServiceData>({
      project: 'default',
      kind: 'backend',
      keys: [],
      revoked_keys: [],
      configs: new Map(),
      flags: new Map(),
      secrets: new Map(),
      next_versions: new Map(),
      revision: 1,
      trusts: new Map(),
      data_keys: [],
    });
    expect(parse({}).services.size).toBe(0);
  });

  it('merges a partial tenant over the defaults', () => {
    expect(parse({ tenant: { ab_addon: false, write_rate_per_minute: 5 } }).tenant).toEqual({
      ...DEFAULT_TENANT,
      ab_addon: false,
      write_rate_per_minute: 5,
    });
  });

  it('defaults created_at of seed-form secrets to the current time', () => {
    const data = parseServerData({ services: { shop: { secrets: { a: { value: 'x' } } } } }, 'seed');
    const createdAt = Date.parse(data.services.get('shop')!.secrets.get('a')!.versions[0]!.created_at);
    expect(Math.abs(createdAt - Date.now())).toBeLessThan(60_000);
  });

  it('keeps a higher next_versions and versions for deleted secrets', () => {
    const data = parse(
      seedWith((shop) => {
        shop['next_versions'] = { 'stripe.api_key': 7, 'old.secret': 3 };
      }),
    );
    expect(data.services.get('shop')!.next_versions).toEqual(
      new Map([
        ['stripe.api_key', 7],
        ['old.secret', 3],
      ]),
    );
  });

  it('reads the demo seed', () => {
    const data = readServerDataFile(DEMO_SEED);
    expect(data.tenant.ab_addon).toBe(true);
    expect([...data.services.keys()]).toEqual(['shop', 'web']);
    const shop = data.services.get('shop')!;
    expect(shop.keys.map((k) => k.plaintext)).toEqual(['svs_shop_local_secret', 'svp_shop_local_public']);
    expect([...shop.configs.keys()]).toEqual(
      expect.arrayContaining([
        'db.host',
        'db.port',
        'db.pool.max',
        'pricing.discount',
        'maintenance.enabled',
        'cors.origins',
        'banner.text',
        'greeting.text',
      ]),
    );
    expect(shop.configs.get('pricing.discount')).toBe(0.15);
    expect(shop.configs.get('maintenance.enabled')).toBe(false);
    expect(Array.isArray(shop.configs.get('cors.origins'))).toBe(true);
    expect(shop.flags.get('new-checkout')!.is_enabled).toBe(true);
    expect(shop.flags.get('beta-dashboard')!.is_enabled).toBe(false);
    expect(shop.flags.get('new-pricing')!.ab).toEqual({
      percentage: 50,
      salt: expect.any(String) as string,
      cohorts: [{ conditions: [{ attribute: 'country', op: 'in', values: ['DE', 'FR'] }], percentage: 100 }],
    });
    expect(shop.secrets.get('stripe.api_key')!.type).toBe('text');
    expect(shop.secrets.get('tls.client_pem')!.type).toBe('file');
    expect(shop.secrets.get('tls.client_pem')!.versions.map((v) => v.version)).toEqual([1, 2]);
    const web = data.services.get('web')!;
    expect(web.kind).toBe('frontend');
    expect(web.keys.map((k) => k.plaintext)).toEqual(['svp_web_local_public']);
    expect(web.configs.size).toBeGreaterThanOrEqual(2);
    expect(web.flags.size).toBeGreaterThanOrEqual(2);
  });

  it('keeps a key named __proto__ as data', () => {
    const json = JSON.parse(
      '{"services":{"shop":{"configs":{"__proto__":5},"flags":{"__proto__":{"is_enabled":true}}}}}',
    ) as unknown;
    const data = parse(json);
    expect(data.services.get('shop')!.configs.get('__proto__')).toBe(5);
    const written = serializeServerData(data) as { services: { shop: { configs: Record<string, unknown> } } };
    expect(Object.getPrototypeOf(written.services.shop.configs)).toBe(Object.prototype);
    expect(Object.hasOwn(written.services.shop.configs, '__proto__')).toBe(true);
    expect(JSON.stringify(written)).toContain('"__proto__":5');
    expect(parse(JSON.parse(JSON.stringify(written)))).toEqual(data);
  });
});

describe('parseServerData errors', () => {
  const secretValue = 'rk_live_VERY_SECRET_value';
  const apiKey = 'svs_shop_local_secret';

  it.each<[string, (shop: Record<string, unknown>, root: Record<string, unknown>) => void, string]>([
    [
      'an object config value',
      (shop) => (shop['configs'] = { 'a.b': { x: 1 } }),
      'services.shop.configs["a.b"]: objects are not config values',
    ],
    [
      'a bad config key',
      (shop) => (shop['configs'] = { 'a b': 1 }),
      'services.shop.configs["a b"]: a config key must be 1–256 characters of [A-Za-z0-9._-], got 3 characters',
    ],
    [
      'a bad slug',
      (shop, root) => (root['services'] = { Shop: shop }),
      'services.Shop: a service slug must be 1–63 characters of [a-z0-9-] that start and end with a letter or digit',
    ],
    [
      'a slug with a trailing dash',
      (shop, root) => (root['services'] = { 'shop-': shop }),
      'services["shop-"]: a service slug must be 1–63 characters of [a-z0-9-] that start and end with a letter or digit',
    ],
    ['services not an object', (_shop, root) => (root['services'] = []), 'services: must be an object, got an array'],
    [
      'a service not an object',
      (_shop, root) => (root['services'] = { shop: 'x' }),
      'services.shop: must be an object, got a string',
    ],
    [
      'an unknown top-level member',
      (_shop, root) => (root['service'] = {}),
      'unknown member "service"; allowed: tenant, projects, services, audit, tokens, access, sealing, $schema',
    ],
    [
      'an unknown service member',
      (shop) => (shop['config'] = {}),
      'services.shop: unknown member "config"; allowed: project, kind, keys, revoked_keys, configs, flags, secrets, next_versions, revision, audit, trusts, data_keys',
    ],
    [
      'a bad tenant member',
      (_shop, root) => (root['tenant'] = { overdue_days: -2 }),
      'tenant.overdue_days: must be at least 0, got -2',
    ],
    [
      'an unknown tenant member',
      (_shop, root) => (root['tenant'] = { ab: true }),
      'tenant: unknown member "ab"; allowed: overdue_days, ab_addon, quarantined_until, write_rate_per_minute',
    ],
    [
      'a bad kind',
      (shop) => (shop['kind'] = 'Backend'),
      'services.shop.kind: a service kind must be 1–64 characters of [a-z0-9_-], got "Backend"',
    ],
    [
      'keys not an array',
      (shop) => (shop['keys'] = apiKey),
      'services.shop.keys: must be an array of API keys, got a string',
    ],
    [
      'a malformed key',
      (shop) => (shop['keys'] = ['svs_ok', 'sk_live_123']),
      'services.shop.keys[1]: an API key must be "svs_" or "svp_" followed by 1–200 characters of [A-Za-z0-9_-]',
    ],
    [
      'a key twice in one list',
      (shop) => (shop['keys'] = [apiKey, 'svp_x', apiKey]),
      'services.shop.keys[2]: this key already appears at services.shop.keys[0]; a key belongs to one service and is either active or revoked',
    ],
    [
      'a key both active and revoked',
      (shop) => (shop['revoked_keys'] = ['svp_old', apiKey]),
      'services.shop.revoked_keys[1]: this key already appears at services.shop.keys[0]; a key belongs to one service and is either active or revoked',
    ],
    [
      'a key in two services',
      (shop, root) => (root['services'] = { shop, web: { keys: ['svp_web', apiKey] } }),
      'services.web.keys[1]: this key already appears at services.shop.keys[0]; a key belongs to one service and is either active or revoked',
    ],
    [
      'a revoked key reused by another service',
      (shop, root) => {
        shop['revoked_keys'] = ['svp_old'];
        root['services'] = { shop, web: { keys: ['svp_old'] } };
      },
      'services.web.keys[0]: this key already appears at services.shop.revoked_keys[0]; a key belongs to one service and is either active or revoked',
    ],
    [
      'a flag without is_enabled',
      (shop) => (shop['flags'] = { f: { starts_at: null } }),
      'services.shop.flags.f.is_enabled: must be a boolean, got nothing',
    ],
    [
      'a flag window backwards',
      (shop) =>
        (shop['flags'] = {
          f: { is_enabled: true, starts_at: '2026-12-01T00:00:00Z', ends_at: '2026-11-01T00:00:00Z' },
        }),
      'services.shop.flags.f.ends_at: must be after starts_at (2026-12-01T00:00:00Z), got 2026-11-01T00:00:00Z',
    ],
    [
      'a date-only timestamp',
      (shop) => (shop['flags'] = { f: { is_enabled: true, starts_at: '2026-12-01' } }),
      'services.shop.flags.f.starts_at: must be an RFC 3339 date-time with Z or an offset, e.g. "2026-11-22T10:00:00Z"; got "2026-12-01"',
    ],
    [
      'a bad operator',
      (shop) =>
        (shop['flags'] = {
          'new-pricing': {
            is_enabled: true,
            ab: {
              percentage: 5,
              salt: 's',
              cohorts: [{ conditions: [{ attribute: 'c', op: 'IN', values: [] }], percentage: 1 }],
            },
          },
        }),
      'services.shop.flags["new-pricing"].ab.cohorts[0].conditions[0].op: must be one of eq, neq, in, not_in, starts_with, ends_with, contains; got "IN"',
    ],
    [
      'a bad secret type',
      (shop) => (shop['secrets'] = { s: { type: 'binary', value: secretValue } }),
      'services.shop.secrets.s.type: must be one of text, file; got "binary"',
    ],
    [
      'a secret value that is not a string',
      (shop) => (shop['secrets'] = { s: { value: 42 } }),
      'services.shop.secrets.s.value: a secret value must be a string, got a number',
    ],
    [
      'a secret with value and versions',
      (shop) => (shop['secrets'] = { s: { value: secretValue, versions: [secretValue] } }),
      'services.shop.secrets.s: has both "value" and "versions"; give one',
    ],
    [
      'a secret with neither',
      (shop) => (shop['secrets'] = { s: { type: 'text' } }),
      'services.shop.secrets.s: needs "value" (a string) or "versions" (an array)',
    ],
    [
      'a secret that is a bare string',
      (shop) => (shop['secrets'] = { s: secretValue }),
      'services.shop.secrets.s: must be an object, got a string',
    ],
    [
      'a secret with no versions',
      (shop) => (shop['secrets'] = { s: { versions: [] } }),
      'services.shop.secrets.s.versions: must hold at least one version (deleting the last version deletes the secret)',
    ],
    [
      'a seed-form version that is not a string',
      (shop) => (shop['secrets'] = { s: { versions: [secretValue, 5] } }),
      'services.shop.secrets.s.versions[1]: a secret value must be a string, got a number',
    ],
    [
      'mixed version forms',
      (shop) =>
        (shop['secrets'] = {
          s: { versions: [{ version: 1, value: secretValue, created_at: '2026-01-01T00:00:00Z' }, secretValue] },
        }),
      'services.shop.secrets.s.versions[1]: must be an object like the versions before it ({"version", "value", "created_at"})',
    ],
    [
      'versions out of order',
      (shop) =>
        (shop['secrets'] = {
          s: {
            versions: [
              { version: 2, value: secretValue, created_at: '2026-01-01T00:00:00Z' },
              { version: 2, value: secretValue, created_at: '2026-01-01T00:00:00Z' },
            ],
          },
        }),
      'services.shop.secrets.s.versions[1].version: versions must ascend; 2 follows 2',
    ],
    [
      'a version without created_at',
      (shop) => (shop['secrets'] = { s: { versions: [{ version: 1, value: secretValue, created_at: null }] } }),
      'services.shop.secrets.s.versions[0].created_at: must be a timestamp, got null',
    ],
    [
      'a version number of 0',
      (shop) =>
        (shop['secrets'] = {
          s: { versions: [{ version: 0, value: secretValue, created_at: '2026-01-01T00:00:00Z' }] },
        }),
      'services.shop.secrets.s.versions[0].version: must be at least 1, got 0',
    ],
    [
      'an unknown version member',
      (shop) =>
        (shop['secrets'] = {
          s: { versions: [{ version: 1, value: secretValue, created_at: '2026-01-01T00:00:00Z', note: 'x' }] },
        }),
      'services.shop.secrets.s.versions[0]: unknown member "note"; allowed: version, value, created_at',
    ],
    [
      'next_versions too low',
      (shop) => {
        shop['secrets'] = { s: { versions: [secretValue, secretValue, secretValue] } };
        shop['next_versions'] = { s: 3 };
      },
      "services.shop.next_versions.s: must be at least 4 (one past the secret's highest version), got 3",
    ],
    [
      'next_versions not an integer',
      (shop) => (shop['next_versions'] = { s: 'x' }),
      'services.shop.next_versions.s: must be an integer, got a string',
    ],
    ['a negative revision', (shop) => (shop['revision'] = -1), 'services.shop.revision: must be at least 0, got -1'],
    ['audit not an array', (shop) => (shop['audit'] = {}), 'services.shop.audit: must be an array, got an object'],
    [
      'a bad audit action',
      (shop) =>
        (shop['audit'] = [{ at: '2026-01-01T00:00:00Z', action: 'secret.read', key: 's', version: 1, actor: 'admin' }]),
      'services.shop.audit[0].action: must be one of secret.set, secret.delete, secret.version.delete',
    ],
    [
      'an audit entry holding a value',
      (shop) =>
        (shop['audit'] = [
          {
            at: '2026-01-01T00:00:00Z',
            action: 'secret.set',
            key: 's',
            version: 1,
            actor: 'admin',
            value: secretValue,
          },
        ]),
      'services.shop.audit[0]: unknown member "value"; allowed: at, action, key, version, actor',
    ],
  ])('%s', (_name, edit, expected) => {
    const error = seedError(() => parse(seedWith(edit)));
    expect(error.message).toBe(`vane.seed.json: ${expected}`);
    expect(error.code).toBe('VANE_LOCAL_SEED_INVALID');
    expect(error).toBeInstanceOf(VaneServerError);
    expect(error.name).toBe('SeedError');
    expect(error.file).toBe('vane.seed.json');
    expect(error.cause).toBeInstanceOf(ValidationError);
    expect(`${error.path}: ${error.problem}`.replace(/^: /, '')).toBe(expected);
    expect(error.message).not.toContain(secretValue);
    expect(error.message).not.toContain(apiKey);
    expect(error.message).not.toContain('sk_live_123');
  });

  it.each<[unknown, string]>([
    [[], 'vane.seed.json: must be an object, got an array'],
    [null, 'vane.seed.json: must be an object, got null'],
    ['{}', 'vane.seed.json: must be an object, got a string'],
  ])('refuses a root of %j', (json, message) => {
    const error = seedError(() => parse(json));
    expect(error.message).toBe(message);
    expect(error.path).toBe('');
  });

  it('never echoes an API key, whatever is wrong with it', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 5 }), (bad) => {
        const key = `svs_${bad}`;
        try {
          parse({ services: { shop: { keys: [key, key] } } });
        } catch (error) {
          expect((error as Error).message).not.toContain(key);
          expect((error as SeedError).path).toBe(
            /^[A-Za-z0-9_-]{1,200}$/.test(bad) ? 'services.shop.keys[1]' : 'services.shop.keys[0]',
          );
          return;
        }
        throw new Error('a duplicate key was accepted');
      }),
    );
  });
});

describe('readServerDataFile and parseServerDataJson', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vane-seed-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('names a missing file', () => {
    const file = join(dir, 'missing.json');
    const error = seedError(() => readServerDataFile(file));
    expect(error.message).toBe(`${file}: cannot read the file (ENOENT: no such file)`);
    expect(error.file).toBe(file);
    expect(error.path).toBe('');
    expect((error.cause as NodeJS.ErrnoException).code).toBe('ENOENT');
  });

  it('names a directory', () => {
    const sub = join(dir, 'sub');
    mkdirSync(sub);
    expect(seedError(() => readServerDataFile(sub)).message).toBe(
      `${sub}: cannot read the file (EISDIR: it is a directory)`,
    );
  });

  it.each<[string, string]>([
    [
      '{\n  "services": {\n    "shop": { "configs": { "a": 1, } }\n  }\n}',
      'invalid JSON at line 3, column 36: expected a member name in double quotes, found "}"',
    ],
    [
      '{"services": {"shop": {"secrets": {"s": {"value": "rk_live_SECRET\u0001"}}}}}',
      'invalid JSON at line 1, column 66: unescaped control character in a string',
    ],
    ['{"a": "rk_live_SECRET\\x"}', 'invalid JSON at line 1, column 22: invalid escape sequence in a string'],
    ['{"a": "rk_live_SECRET', 'invalid JSON at line 1, column 7: unterminated string'],
    [
      '{"a": 1}\n{"b": 2}',
      'invalid JSON at line 2, column 1: expected the end of the file after the JSON value, found "{"',
    ],
    ['[1, 2', 'invalid JSON at line 1, column 6: expected "," or "]", found the end of the file'],
    ['{"a" 1}', 'invalid JSON at line 1, column 6: expected ":", found "1"'],
    ['{"a": tru}', 'invalid JSON at line 1, column 7: expected a value, found "t"'],
    ['{"a": -}', 'invalid JSON at line 1, column 7: expected a number, found "-"'],
    ['{"a": 01}', 'invalid JSON at line 1, column 8: expected "," or "}", found "1"'],
    ['{"a":\r\n\t\u00a0}', 'invalid JSON at line 2, column 2: expected a value, found U+00A0'],
    ['', 'invalid JSON: the file is empty'],
    ['  \n ', 'invalid JSON: the file is empty'],
  ])('locates a syntax error without quoting the text: %j', (text, problem) => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, text);
    const error = seedError(() => readServerDataFile(file));
    expect(error.message).toBe(`${file}: ${problem}`);
    expect(error.cause).toBeInstanceOf(SyntaxError);
    expect(error.message).not.toContain('SECRET');
  });

  it.each<[string]>([
    ['{"secrets": {"s": {"value": rk_live_SECRET_VALUE}}}'],
    ['{"s": {"value": "x", "versions": [rk_live_SECRET_VALUE]}}'],
  ])('keeps the text out of the cause too (V8 quotes it in its SyntaxError): %j', (text) => {
    const error = seedError(() => parseServerDataJson(text, 'state.json'));
    expect(error.cause).toBeInstanceOf(SyntaxError);
    expect(inspect(error, { depth: 10 })).not.toContain('rk_live');
    expect(String(error.cause)).not.toContain('rk_live');
  });

  it('locates the error the way JSON.parse does for any broken text', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), fc.constantFrom('}', ']', ',', ':', '"', 'x', ''), (value, at, junk) => {
        const good = JSON.stringify(value, null, 1);
        const cut = at % (good.length + 1);
        const text = good.slice(0, cut) + junk + good.slice(cut + (junk === '' ? 1 : 0));
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        if (valid) return;
        const error = seedError(() => parseServerDataJson(text, 'f.json'));
        expect(error.problem).toMatch(/^invalid JSON(: the file is empty| at line \d+, column \d+: .+)$/);
      }),
    );
  });

  it('accepts a byte-order mark', () => {
    const file = join(dir, 'bom.json');
    writeFileSync(file, '\uFEFF{"services": {"shop": {}}}');
    expect(readServerDataFile(file).services.has('shop')).toBe(true);
  });

  it('prefixes validation errors with the file name', () => {
    const file = join(dir, 'vane.seed.json');
    writeFileSync(file, JSON.stringify({ services: { shop: { configs: { 'a.b': { nested: true } } } } }));
    expect(seedError(() => readServerDataFile(file)).message).toBe(
      `${file}: services.shop.configs["a.b"]: objects are not config values`,
    );
  });
});

describe('serializeServerData', () => {
  it('writes the state form', () => {
    const data = parse(
      seedWith((shop) => {
        shop['flags'] = { f: { is_enabled: true, ab: { percentage: 5, salt: 's' } }, g: { is_enabled: false } };
      }),
    );
    expect(serializeServerData(data)).toEqual({
      tenant: { ...DEFAULT_TENANT },
      services: {
        shop: {
          kind: 'backend',
          keys: [
            { hash: hashApiKey('svs_shop_local_secret'), hint: 'svs_…cret', type: 'secret' },
            { hash: hashApiKey('svp_shop_local_public'), hint: 'svp_…blic', type: 'public' },
          ],
          revoked_keys: [],
          revision: 1,
          configs: { 'db.host': 'localhost' },
          flags: {
            f: { is_enabled: true, starts_at: null, ends_at: null, ab: { percentage: 5, salt: 's', cohorts: [] } },
            g: { is_enabled: false, starts_at: null, ends_at: null },
          },
          secrets: {
            'stripe.api_key': {
              type: 'text',
              versions: [{ version: 1, value: 'rk_test_123', created_at: '2026-11-22T10:00:00Z' }],
            },
          },
          next_versions: { 'stripe.api_key': 2 },
        },
      },
      audit: [],
    });
  });

  it('does not share arrays or objects with the data it reads', () => {
    const data = parse(seedWith(() => undefined));
    const written = serializeServerData(data) as { services: { shop: { keys: string[] } } };
    written.services.shop.keys.push('svp_new');
    expect(data.services.get('shop')!.keys).toHaveLength(2);
  });
});

describe('round trip', () => {
  // Plain objects only: fast-check may otherwise build null-prototype records.
  const record = <T>(model: { [K in keyof T]: fc.Arbitrary<T[K]> }): fc.Arbitrary<T> =>
    fc.record(model, { noNullPrototype: true });
  const timestamp = fc
    .date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true })
    .map(formatTimestamp);
  const key = fc.oneof(
    fc.stringMatching(/^[A-Za-z0-9._-]{1,12}$/),
    fc.constantFrom('__proto__', 'constructor', '10', 'a.b'),
  );
  // Through JSON text so that -0 (which JSON cannot carry) never appears.
  const json = fc.jsonValue().map((value) => JSON.parse(JSON.stringify(value)) as JsonValue);
  const configValue: fc.Arbitrary<ConfigValue> = fc.oneof(
    fc.string(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(json, { maxLength: 4 }),
  );
  const percentage = fc.double({ min: 0, max: 100, noNaN: true });
  const abRule: fc.Arbitrary<AbRule> = record({
    percentage,
    salt: fc.string(),
    cohorts: fc.array(
      record({
        conditions: fc.array(
          record({
            attribute: fc.string(),
            op: fc.constantFrom(...AB_OPERATORS),
            values: fc.array(fc.string(), { maxLength: 3 }),
          }),
          { maxLength: 3 },
        ),
        percentage,
      }),
      { maxLength: 3 },
    ),
  });
  const flag: fc.Arbitrary<FlagDefinition> = fc
    .record({
      is_enabled: fc.boolean(),
      window: fc.tuple(fc.option(timestamp), fc.option(timestamp)),
      ab: fc.option(abRule),
    })
    .map(({ is_enabled, window: [a, b], ab }) => {
      let [starts_at, ends_at] = [a, b];
      if (starts_at !== null && ends_at !== null) {
        if (starts_at === ends_at) ends_at = null;
        else if (Date.parse(starts_at) > Date.parse(ends_at)) [starts_at, ends_at] = [ends_at, starts_at];
      }
      const definition: FlagDefinition = { is_enabled, starts_at, ends_at };
      if (ab !== null) definition.ab = ab;
      return definition;
    });
  const secret: fc.Arbitrary<SecretRecord> = fc
    .record({
      type: fc.constantFrom(...SECRET_TYPES),
      versions: fc.uniqueArray(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 4 }),
      values: fc.array(fc.tuple(fc.string(), timestamp), { minLength: 4, maxLength: 4 }),
    })
    .map(({ type, versions, values }) => ({
      type,
      versions: [...versions]
        .sort((x, y) => x - y)
        .map((version, index) => ({ version, value: values[index]![0], created_at: values[index]![1] })),
    }));
  const audit: fc.Arbitrary<AuditEntry> = record({
    at: timestamp,
    action: fc.constantFrom('secret.set', 'secret.delete', 'secret.version.delete'),
    key,
    version: fc.option(fc.integer({ min: 1, max: 100 })),
    actor: fc.string(),
  });
  const tenant: fc.Arbitrary<TenantState> = record({
    overdue_days: fc.nat(),
    ab_addon: fc.boolean(),
    quarantined_until: fc.option(timestamp),
    write_rate_per_minute: fc.integer({ min: 1, max: 100_000 }),
  });
  const serviceParts = record({
    kind: fc.oneof(fc.constantFrom('backend', 'frontend'), fc.stringMatching(/^[a-z0-9_-]{1,64}$/)),
    keyCount: fc.nat({ max: 3 }),
    revokedCount: fc.nat({ max: 2 }),
    configs: fc.array(fc.tuple(key, configValue), { maxLength: 5 }),
    flags: fc.array(fc.tuple(key, flag), { maxLength: 4 }),
    secrets: fc.array(fc.tuple(key, secret, fc.nat({ max: 3 })), { maxLength: 3 }),
    deleted: fc.array(fc.tuple(key, fc.integer({ min: 1, max: 99 })), { maxLength: 2 }),
    revision: fc.nat(),
    audit: fc.array(audit, { maxLength: 3 }),
  });
  const serverData: fc.Arbitrary<ServerData> = fc
    .record({
      tenant,
      services: fc.uniqueArray(fc.tuple(fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?$/), serviceParts), {
        maxLength: 4,
        selector: ([slug]) => slug,
      }),
      apiKeys: fc.uniqueArray(
        fc.tuple(fc.constantFrom('svs_', 'svp_'), fc.stringMatching(/^[A-Za-z0-9_-]{1,16}$/)).map(([p, s]) => p + s),
        { minLength: 20, maxLength: 20 },
      ),
    })
    .map(({ tenant, services, apiKeys }) => {
      const pool = [...apiKeys];
      const map = new Map<string, ServiceData>();
      const trail: AuditRecord[] = [];
      for (const [slug, parts] of services) {
        for (const entry of parts.audit) {
          trail.push(chainAuditEntry(trail[trail.length - 1], { ...entry, service: slug, revision: parts.revision }));
        }
        const secrets = new Map(parts.secrets.map(([k, s]) => [k, s] as const));
        const nextVersions = new Map(parts.deleted);
        for (const [k, s, extra] of parts.secrets) {
          if (secrets.get(k) === s) nextVersions.set(k, s.versions[s.versions.length - 1]!.version + 1 + extra);
        }
        map.set(slug, {
          project: 'default',
          kind: parts.kind,
          // A state holds keys' records, never the keys.
          keys: pool.splice(0, parts.keyCount).map((k) => storedApiKey(apiKeyRecord(k))),
          revoked_keys: pool.splice(0, parts.revokedCount).map((k) => storedApiKey(apiKeyRecord(k))),
          configs: new Map(parts.configs),
          flags: new Map(parts.flags),
          secrets,
          next_versions: nextVersions,
          revision: parts.revision,
          trusts: new Map(),
          data_keys: [],
        });
      }
      return {
        tenant,
        services: map,
        audit: trail,
        projects: new Map([['default', { created_at: null }]]),
        tokens: new Map(),
        access: emptyAccessState(),
      };
    });

  it('parseServerData(serializeServerData(d)) equals d', () => {
    fc.assert(
      fc.property(serverData, (data) => {
        expect(parseServerData(serializeServerData(data), 'state.json')).toStrictEqual(data);
      }),
      { numRuns: 300 },
    );
  });

  it('survives JSON text, as the state file stores it', () => {
    fc.assert(
      fc.property(serverData, (data) => {
        const text = JSON.stringify(serializeServerData(data), null, 2);
        expect(parseServerDataJson(text, 'state.json')).toStrictEqual(data);
      }),
      { numRuns: 300 },
    );
  });

  it('the demo seed becomes a fixed point after one round', () => {
    const data = parseServerData(serializeServerData(readServerDataFile(DEMO_SEED)), 'state');
    expect(parseServerData(serializeServerData(data), 'state')).toStrictEqual(data);
  });
});
