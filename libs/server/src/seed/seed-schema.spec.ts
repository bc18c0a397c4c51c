import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { toJsonSchema } from '@valibot/to-json-schema';
import { SeedError } from './seed-error.js';
import { parseServerData, readServerDataFile } from './seed-parser.js';
import { SEED_SCHEMA_HEADER, seedSchema } from './seed-schema.js';
import { serializeServerData } from '../persistence/state-serializer.js';

const SEEDS = join(__dirname, '..', '..', 'seeds');
const published = JSON.parse(readFileSync(join(SEEDS, 'vane-seed.schema.json'), 'utf8')) as Record<string, unknown>;

// A real JSON Schema validator, strict about the schema itself, checking formats (date-time, uri).
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
const validate = ajv.compile(published);

/** A valid seed with one service, changed by `edit`. */
function seedWith(edit: (service: Record<string, unknown>, seed: Record<string, unknown>) => void): unknown {
  const service: Record<string, unknown> = {
    kind: 'backend',
    keys: ['svs_shop_local_secret'],
    configs: { 'db.host': 'localhost' },
    flags: { 'new-checkout': { is_enabled: true } },
    secrets: { 'stripe.api_key': { value: 'rk_test_1' } },
  };
  const seed: Record<string, unknown> = { services: { shop: service } };
  edit(service, seed);
  return seed;
}

describe('the seed JSON Schema (seeds/vane-seed.schema.json)', () => {
  it('is the one generated from src/seed-schema.ts (npm run seed-schema -w @vane/server rewrites it)', () => {
    expect(published).toEqual({ ...toJsonSchema(seedSchema, { target: 'draft-2020-12' }), ...SEED_SCHEMA_HEADER });
  });

  it('is named by the demo seed, which it accepts', () => {
    const demo = JSON.parse(readFileSync(join(SEEDS, 'demo.seed.json'), 'utf8')) as Record<string, unknown>;
    expect(demo['$schema']).toBe('./vane-seed.schema.json');
    expect(validate(demo)).toBe(true);
    expect(validate.errors).toBeNull();
  });

  it('accepts a state file the server writes (the state form is a valid seed)', () => {
    const state = serializeServerData(readServerDataFile(join(SEEDS, 'demo.seed.json')));
    expect(validate(state)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['an object as a config value', seedWith((s) => (s['configs'] = { 'a.b': { nested: 1 } }))],
    ['a slug with capitals', { services: { Shop: {} } }],
    ['a misspelt member ("config")', seedWith((s) => (s['config'] = {}))],
    ['a key that is neither svs_ nor svp_', seedWith((s) => (s['keys'] = ['sk_live_123']))],
    ['a flag without is_enabled', seedWith((s) => (s['flags'] = { f: { starts_at: null } }))],
    ['a flag starting "tomorrow"', seedWith((s) => (s['flags'] = { f: { is_enabled: true, starts_at: 'tomorrow' } }))],
    ['a secret with neither value nor versions', seedWith((s) => (s['secrets'] = { s: { type: 'text' } }))],
    ['a secret of an unknown type', seedWith((s) => (s['secrets'] = { s: { type: 'binary', value: 'x' } }))],
    ['a negative overdue_days', seedWith((_s, seed) => (seed['tenant'] = { overdue_days: -1 }))],
    [
      'an A/B percentage over 100',
      seedWith((s) => (s['flags'] = { f: { is_enabled: true, ab: { percentage: 101, salt: 's' } } })),
    ],
    [
      'a trust of an unknown provider',
      seedWith((s) => (s['trusts'] = { t: { provider: 'oracle', key_type: 'secret' } })),
    ],
    ['a config key with a space', seedWith((s) => (s['configs'] = { 'db host': 1 }))],
  ])('rejects %s, as the parser does', (_name, seed) => {
    expect(validate(seed)).toBe(false);
    expect(() => parseServerData(seed, 'broken.seed.json')).toThrow(SeedError);
  });
});
