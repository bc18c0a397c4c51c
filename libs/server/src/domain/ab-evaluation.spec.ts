import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { abBucket, conditionHolds, evaluateAbFlag, isInPercentage } from './ab-evaluation.js';
import type { AbCohort, AbCondition, AbOperator, FlagDefinition } from './model.js';

interface Vector {
  line: number;
  flagKey: string;
  salt: string;
  userId: string;
  hex: string;
  bucket: number;
  inAt50: boolean;
}

/** Reads the test-vector table of the published doc, so the doc and the code cannot disagree. */
function readVectors(): Vector[] {
  const file = join(__dirname, '..', '..', '..', '..', 'docs', 'ab-bucketing.md');
  const lines = readFileSync(file, 'utf8').split('\n');
  const start = lines.findIndex((line) => line.trim() === '## Test vectors');
  expect(start).toBeGreaterThan(-1);
  const header = lines.findIndex((line, index) => index > start && line.startsWith('| flag key |'));
  expect(header).toBeGreaterThan(start);
  const cells = (line: string): string[] =>
    line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
  expect(cells(lines[header]!).slice(0, 6)).toEqual([
    'flag key',
    'salt',
    'user id',
    'first 8 hex',
    'bucket',
    'at 50 %',
  ]);
  const vectors: Vector[] = [];
  for (let index = header + 2; index < lines.length && lines[index]!.startsWith('|'); index++) {
    const [flagKey, salt, userId, hex, bucket, verdict] = cells(lines[index]!);
    expect(verdict === 'in' || verdict === 'out').toBe(true);
    vectors.push({
      line: index + 1,
      flagKey: JSON.parse(flagKey!) as string,
      salt: JSON.parse(salt!) as string,
      userId: JSON.parse(userId!) as string,
      hex: hex!,
      bucket: Number(bucket),
      inAt50: verdict === 'in',
    });
  }
  return vectors;
}

const vectors = readVectors();

describe('abBucket against docs/ab-bucketing.md', () => {
  it('publishes at least 12 vectors, including the edge cases', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(12);
    expect(vectors.some((v) => v.userId === '')).toBe(true);
    // eslint-disable-next-line no-control-regex -- the range starts at NUL on purpose: any non-ASCII id
    expect(vectors.some((v) => /[^\x00-\x7f]/.test(v.userId))).toBe(true);
    expect(vectors.some((v) => v.flagKey.includes('.'))).toBe(true);
    expect(vectors.map((v) => v.bucket)).toEqual(expect.arrayContaining([0, 4999, 5000, 9999]));
  });

  it.each(vectors.map((v) => [v.line, v] as const))('docs line %i', (_line, v) => {
    const hash = createHash('sha256').update(`${v.flagKey}.${v.salt}.${v.userId}`, 'utf8').digest('hex');
    expect(hash.slice(0, 8)).toBe(v.hex);
    expect(parseInt(v.hex, 16) % 10000).toBe(v.bucket);
    expect(abBucket(v.flagKey, v.salt, v.userId)).toBe(v.bucket);
    expect(isInPercentage(v.bucket, 50)).toBe(v.inAt50);
  });
});

describe('abBucket', () => {
  it('is an integer bucket 0–9999, the same every time', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string({ unit: 'grapheme' }), (flagKey, salt, userId) => {
        const bucket = abBucket(flagKey, salt, userId);
        expect(Number.isInteger(bucket)).toBe(true);
        expect(bucket).toBeGreaterThanOrEqual(0);
        expect(bucket).toBeLessThan(10000);
        expect(abBucket(flagKey, salt, userId)).toBe(bucket);
      }),
    );
  });
});

describe('isInPercentage', () => {
  it.each<[number, number, boolean]>([
    [0, 0, false],
    [9999, 100, true],
    [0, 100, true],
    [0, 0.01, true],
    [1, 0.01, false],
    [4999, 50, true],
    [5000, 50, false],
    [0, 0.005, true],
    [0, 0.004, false],
    [3332, 33.333, true],
    [3333, 33.333, false],
  ])('bucket %i at %d %% → %p', (bucket, percentage, expected) => {
    expect(isInPercentage(bucket, percentage)).toBe(expected);
  });

  it('only adds users as the percentage grows', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9999 }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        (bucket, a, b) => {
          const [low, high] = a <= b ? [a, b] : [b, a];
          if (isInPercentage(bucket, low)) expect(isInPercentage(bucket, high)).toBe(true);
        },
      ),
    );
  });
});

describe('conditionHolds', () => {
  const condition = (op: AbOperator, values: string[], attribute = 'country'): AbCondition => ({
    attribute,
    op,
    values,
  });
  const de = { country: 'DE' };

  it.each<[AbOperator, string[], string, boolean]>([
    ['eq', ['DE'], 'DE', true],
    ['eq', ['FR'], 'DE', false],
    ['eq', ['de'], 'DE', false],
    ['eq', ['FR', 'DE'], 'DE', true],
    ['eq', [], 'DE', false],
    ['neq', ['DE'], 'DE', false],
    ['neq', ['FR'], 'DE', true],
    ['neq', [], 'DE', true],
    ['in', ['DE', 'FR'], 'DE', true],
    ['in', ['AT', 'FR'], 'DE', false],
    ['in', [], 'DE', false],
    ['not_in', ['DE', 'FR'], 'DE', false],
    ['not_in', ['AT', 'FR'], 'DE', true],
    ['not_in', [], 'DE', true],
    ['starts_with', ['pro'], 'pro-annual', true],
    ['starts_with', ['x', 'pro'], 'pro-annual', true],
    ['starts_with', ['annual'], 'pro-annual', false],
    ['starts_with', [''], 'pro-annual', true],
    ['ends_with', ['annual'], 'pro-annual', true],
    ['ends_with', ['pro'], 'pro-annual', false],
    ['contains', ['o-a'], 'pro-annual', true],
    ['contains', ['xyz', 'ann'], 'pro-annual', true],
    ['contains', ['PRO'], 'pro-annual', false],
    ['contains', [], 'pro-annual', false],
  ])('%s %j with %p → %p', (op, values, actual, expected) => {
    expect(conditionHolds(condition(op, values, 'a'), { a: actual })).toBe(expected);
  });

  it.each<[AbOperator, boolean]>([
    ['eq', false],
    ['neq', true],
    ['in', false],
    ['not_in', true],
    ['starts_with', false],
    ['ends_with', false],
    ['contains', false],
  ])('a missing attribute: %s → %p', (op, expected) => {
    expect(conditionHolds(condition(op, ['']), {})).toBe(expected);
    expect(conditionHolds(condition(op, ['DE'], 'plan'), de)).toBe(expected);
  });

  it('never reads attributes from the prototype', () => {
    expect(conditionHolds(condition('starts_with', ['function'], 'constructor'), {})).toBe(false);
    expect(conditionHolds(condition('neq', ['x'], 'toString'), {})).toBe(true);
    expect(conditionHolds(condition('eq', ['x'], 'constructor'), { constructor: 'x' })).toBe(true);
  });
});

describe('evaluateAbFlag', () => {
  // Buckets from the published vectors for flag new-pricing, salt new-pricing-2026.
  const key = 'new-pricing';
  const salt = 'new-pricing-2026';
  const bucket0 = 'user-19606';
  const bucket4999 = 'user-5631';
  const bucket5000 = 'user-150';
  const bucket9999 = 'user-18801';
  const fr = { country: 'FR' };
  const cohort = (percentage: number, conditions: AbCondition[]): AbCohort => ({ conditions, percentage });
  const inCountries = (...values: string[]): AbCondition => ({ attribute: 'country', op: 'in', values });
  const flag = (percentage: number, cohorts: AbCohort[] = []): FlagDefinition => ({
    is_enabled: true,
    starts_at: null,
    ends_at: null,
    ab: { percentage, salt, cohorts },
  });

  it('checks the bucket ids used below', () => {
    expect([bucket0, bucket4999, bucket5000, bucket9999].map((user) => abBucket(key, salt, user))).toEqual([
      0, 4999, 5000, 9999,
    ]);
  });

  it('answers false for an inactive flag, whatever the rule says', () => {
    expect(evaluateAbFlag(key, flag(100, [cohort(100, [])]), false, bucket0, fr)).toBe(false);
    expect(evaluateAbFlag(key, { is_enabled: true, starts_at: null, ends_at: null }, false, bucket0, {})).toBe(false);
  });

  it('answers is_active when there is no A/B rule', () => {
    expect(evaluateAbFlag(key, { is_enabled: true, starts_at: null, ends_at: null }, true, bucket9999, {})).toBe(true);
  });

  it('uses the rollout percentage when no cohort matches', () => {
    const rule = flag(50, [cohort(100, [inCountries('DE', 'FR')])]);
    expect(evaluateAbFlag(key, rule, true, bucket4999, { country: 'US' })).toBe(true);
    expect(evaluateAbFlag(key, rule, true, bucket5000, { country: 'US' })).toBe(false);
    expect(evaluateAbFlag(key, rule, true, bucket5000, {})).toBe(false);
  });

  it('lets a matching cohort decide with its own percentage, both ways', () => {
    expect(evaluateAbFlag(key, flag(50, [cohort(100, [inCountries('FR')])]), true, bucket9999, fr)).toBe(true);
    expect(evaluateAbFlag(key, flag(50, [cohort(0, [inCountries('FR')])]), true, bucket0, fr)).toBe(false);
  });

  it('stops at the first matching cohort', () => {
    const rule = flag(100, [cohort(0, [inCountries('FR')]), cohort(100, [inCountries('FR')])]);
    expect(evaluateAbFlag(key, rule, true, bucket0, fr)).toBe(false);
    const reversed = flag(0, [cohort(100, [inCountries('FR')]), cohort(0, [inCountries('FR')])]);
    expect(evaluateAbFlag(key, reversed, true, bucket9999, fr)).toBe(true);
  });

  it('skips a cohort unless all of its conditions hold', () => {
    const pro = { attribute: 'plan', op: 'eq', values: ['pro'] } satisfies AbCondition;
    const rule = flag(0, [cohort(100, [inCountries('FR'), pro]), cohort(50, [inCountries('FR')])]);
    expect(evaluateAbFlag(key, rule, true, bucket9999, { country: 'FR', plan: 'pro' })).toBe(true);
    expect(evaluateAbFlag(key, rule, true, bucket9999, { country: 'FR', plan: 'free' })).toBe(false);
    expect(evaluateAbFlag(key, rule, true, bucket4999, { country: 'FR', plan: 'free' })).toBe(true);
  });

  it('treats a cohort without conditions as matching everyone', () => {
    expect(evaluateAbFlag(key, flag(0, [cohort(100, [])]), true, bucket9999, {})).toBe(true);
  });

  it('salts per flag: the same user can land differently in another flag', () => {
    expect(abBucket('other-flag', salt, bucket0)).not.toBe(0);
  });
});
