/**
 * Server-side evaluation of A/B flags (PROTOCOL §7). Bucketing must give the
 * same answer in every implementation, so it is exactly the published
 * formula; docs/ab-bucketing.md holds test vectors checked by the spec.
 */
import { createHash } from 'node:crypto';
import type { AbCondition, FlagDefinition } from './model.js';

/** Number of buckets; a percentage p covers buckets `[0, round(p * 100))`. */
export const AB_BUCKETS = 10_000;

/**
 * The user's bucket for a flag, 0–9999:
 * `parseInt(sha256_hex(flagKey + "." + salt + "." + userId).slice(0, 8), 16) % 10000`,
 * hashing the UTF-8 bytes of the joined string.
 */
export function abBucket(flagKey: string, salt: string, userId: string): number {
  const hex = createHash('sha256').update(`${flagKey}.${salt}.${userId}`, 'utf8').digest('hex');
  return parseInt(hex.slice(0, 8), 16) % AB_BUCKETS;
}

/** Whether a bucket falls inside a percentage (0–100): `bucket < Math.round(percentage * 100)`. */
export function isInPercentage(bucket: number, percentage: number): boolean {
  return bucket < Math.round(percentage * 100);
}

/**
 * Whether one cohort condition holds for the user's attributes. Every
 * operator compares strings and matches against any of `values`: `eq`, `in`,
 * `starts_with`, `ends_with` and `contains` hold when some value matches,
 * `neq` and `not_in` when none does. A missing attribute fails every operator
 * except `neq` and `not_in`.
 */
export function conditionHolds(condition: AbCondition, attributes: Readonly<Record<string, string>>): boolean {
  // hasOwn: an attribute named `constructor` or `__proto__` must not reach the prototype.
  const actual = Object.hasOwn(attributes, condition.attribute) ? attributes[condition.attribute] : undefined;
  if (typeof actual !== 'string') {
    return condition.op === 'neq' || condition.op === 'not_in';
  }
  switch (condition.op) {
    case 'eq':
    case 'in':
      return condition.values.includes(actual);
    case 'neq':
    case 'not_in':
      return !condition.values.includes(actual);
    case 'starts_with':
      return condition.values.some((value) => actual.startsWith(value));
    case 'ends_with':
      return condition.values.some((value) => actual.endsWith(value));
    case 'contains':
      return condition.values.some((value) => actual.includes(value));
  }
}

/**
 * Evaluates one flag for one user (PROTOCOL §7): not active → `false`; else
 * the first cohort whose conditions all hold decides with its percentage;
 * else the rule's rollout percentage; no A/B rule → `isActive`.
 *
 * @param isActive - the flag's `is_active` now, as the server computes it.
 */
export function evaluateAbFlag(
  flagKey: string,
  flag: FlagDefinition,
  isActive: boolean,
  userId: string,
  attributes: Readonly<Record<string, string>>,
): boolean {
  if (!isActive) return false;
  const rule = flag.ab;
  if (rule === undefined) return isActive;
  const cohort = rule.cohorts.find((candidate) =>
    candidate.conditions.every((condition) => conditionHolds(condition, attributes)),
  );
  return isInPercentage(
    abBucket(flagKey, rule.salt, userId),
    cohort === undefined ? rule.percentage : cohort.percentage,
  );
}
