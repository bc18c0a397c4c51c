/** Flag definitions and their A/B rules (PROTOCOL §10). */
import { appendJsonPath } from '../json-path.js';
import type { AbCohort, AbCondition, AbOperator, AbRule, FlagDefinition } from '../model.js';
import { describeType, quote } from './json-type.js';
import { parseBoolean, parseObject, parsePercentage, parseString, parseStringArray } from './primitives.js';
import { parseTimestamp } from './timestamp.js';
import { fail } from './validation-error.js';

/** The seven cohort condition operators of PROTOCOL §7, in their documented order. */
export const AB_OPERATORS: ReadonlyArray<AbOperator> = Object.freeze([
  'eq',
  'neq',
  'in',
  'not_in',
  'starts_with',
  'ends_with',
  'contains',
]);

function parseOperator(value: unknown, path: string): AbOperator {
  if (typeof value !== 'string' || !(AB_OPERATORS as ReadonlyArray<string>).includes(value)) {
    const got = typeof value === 'string' ? quote(value) : describeType(value);
    fail(path, `must be one of ${AB_OPERATORS.join(', ')}; got ${got}`);
  }
  return value as AbOperator;
}

function parseCondition(value: unknown, path: string): AbCondition {
  const object = parseObject(value, path);
  return {
    attribute: parseString(object['attribute'], appendJsonPath(path, 'attribute')),
    op: parseOperator(object['op'], appendJsonPath(path, 'op')),
    values: parseStringArray(object['values'], appendJsonPath(path, 'values')).slice(),
  };
}

function parseCohort(value: unknown, path: string): AbCohort {
  const object = parseObject(value, path);
  const conditionsPath = appendJsonPath(path, 'conditions');
  const conditions = object['conditions'];
  if (!Array.isArray(conditions)) fail(conditionsPath, `must be an array, got ${describeType(conditions)}`);
  return {
    conditions: conditions.map((condition, index) => parseCondition(condition, appendJsonPath(conditionsPath, index))),
    percentage: parsePercentage(object['percentage'], appendJsonPath(path, 'percentage')),
  };
}

/**
 * Parses a flag's A/B rule (PROTOCOL §10): `percentage` 0–100, `salt`
 * string, optional `cohorts` (default `[]`), each with `conditions` and a
 * `percentage`. Unknown members are ignored, as PROTOCOL asks of readers.
 */
export function parseAbRule(value: unknown, path: string): AbRule {
  const object = parseObject(value, path);
  const cohortsPath = appendJsonPath(path, 'cohorts');
  const cohorts = object['cohorts'] ?? [];
  if (!Array.isArray(cohorts)) fail(cohortsPath, `must be an array, got ${describeType(cohorts)}`);
  return {
    percentage: parsePercentage(object['percentage'], appendJsonPath(path, 'percentage')),
    salt: parseString(object['salt'], appendJsonPath(path, 'salt')),
    cohorts: cohorts.map((cohort, index) => parseCohort(cohort, appendJsonPath(cohortsPath, index))),
  };
}

/**
 * Parses a flag definition (PROTOCOL §10): `is_enabled` boolean (required),
 * `starts_at` and `ends_at` timestamps or null (default null; when both are
 * set, `starts_at` must come first), and `ab` (absent or null: no rule).
 * Unknown members such as a copied `is_active` are ignored.
 */
export function parseFlagDefinition(value: unknown, path: string): FlagDefinition {
  const object = parseObject(value, path);
  const flag: FlagDefinition = {
    is_enabled: parseBoolean(object['is_enabled'], appendJsonPath(path, 'is_enabled')),
    starts_at: parseTimestamp(object['starts_at'] ?? null, appendJsonPath(path, 'starts_at')),
    ends_at: parseTimestamp(object['ends_at'] ?? null, appendJsonPath(path, 'ends_at')),
  };
  if (flag.starts_at !== null && flag.ends_at !== null && Date.parse(flag.starts_at) >= Date.parse(flag.ends_at)) {
    fail(appendJsonPath(path, 'ends_at'), `must be after starts_at (${flag.starts_at}), got ${flag.ends_at}`);
  }
  const ab = object['ab'];
  if (ab !== undefined && ab !== null) flag.ab = parseAbRule(ab, appendJsonPath(path, 'ab'));
  return flag;
}
