/** Flag definitions and their A/B rules (PROTOCOL §10). */
import * as v from 'valibot';
import type { AbOperator, AbRule, FlagDefinition } from '../domain/model.js';
import { describeType, quote } from './json-type.js';
import { booleanSchema, membersSchema, percentageSchema, stringArraySchema, stringSchema } from './primitives.js';
import { checkSchema } from './schema-check.js';
import { timestampSchema } from './timestamp.js';

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

const operatorSchema = v.picklist(
  AB_OPERATORS as AbOperator[],
  (issue) =>
    `must be one of ${AB_OPERATORS.join(', ')}; got ${typeof issue.input === 'string' ? quote(issue.input) : describeType(issue.input)}`,
);

const arrayOf = <TItem extends v.GenericSchema>(item: TItem) =>
  v.array(item, (issue) => `must be an array, got ${describeType(issue.input)}`);

const conditionSchema = membersSchema({ attribute: stringSchema, op: operatorSchema, values: stringArraySchema });

const cohortSchema = membersSchema({ conditions: arrayOf(conditionSchema), percentage: percentageSchema });

/**
 * A flag's A/B rule (PROTOCOL §10): `percentage` 0–100, `salt` string,
 * optional `cohorts` (absent or null: `[]`), each with `conditions` and a
 * `percentage`. Unknown members are ignored, as PROTOCOL asks of readers.
 */
export const abRuleSchema = v.pipe(
  membersSchema({
    percentage: percentageSchema,
    salt: stringSchema,
    cohorts: v.nullish(arrayOf(cohortSchema), () => []),
  }),
  v.transform((rule): AbRule => ({ percentage: rule.percentage, salt: rule.salt, cohorts: rule.cohorts })),
);

/**
 * A flag definition (PROTOCOL §10): `is_enabled` boolean (required),
 * `starts_at` and `ends_at` timestamps or null (default null; when both are
 * set, `starts_at` must come first), and `ab` (absent or null: no rule).
 * Unknown members such as a copied `is_active` are ignored.
 */
export const flagDefinitionSchema = v.pipe(
  membersSchema({
    is_enabled: booleanSchema,
    starts_at: v.optional(timestampSchema, null),
    ends_at: v.optional(timestampSchema, null),
    ab: v.nullish(abRuleSchema),
  }),
  v.rawTransform(({ dataset, addIssue, NEVER }): FlagDefinition => {
    const { is_enabled, starts_at, ends_at, ab } = dataset.value;
    if (starts_at !== null && ends_at !== null && Date.parse(starts_at) >= Date.parse(ends_at)) {
      addIssue({
        message: `must be after starts_at (${starts_at}), got ${ends_at}`,
        path: [{ type: 'object', origin: 'value', input: dataset.value, key: 'ends_at', value: ends_at }],
      });
      return NEVER;
    }
    const flag: FlagDefinition = { is_enabled, starts_at, ends_at };
    if (ab !== undefined && ab !== null) flag.ab = ab;
    return flag;
  }),
);

/** Parses a flag's A/B rule (see {@link abRuleSchema}). */
export function parseAbRule(value: unknown, path: string): AbRule {
  return checkSchema(abRuleSchema, value, path);
}

/** Parses a flag definition (see {@link flagDefinitionSchema}). */
export function parseFlagDefinition(value: unknown, path: string): FlagDefinition {
  return checkSchema(flagDefinitionSchema, value, path);
}
