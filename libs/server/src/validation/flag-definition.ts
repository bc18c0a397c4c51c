/** Flag definitions and their A/B rules (PROTOCOL §10). */
import * as v from 'valibot';
import type {
  AbCohort,
  AbCondition,
  AbOperator,
  AbRule,
  FlagDefinition,
  FlagMember,
  FlagPatch,
} from '../domain/model.js';
import { describeType, quote } from './json-type.js';
import {
  booleanSchema,
  knownMembersOnly,
  membersSchema,
  objectSchema,
  percentageSchema,
  stringArraySchema,
  stringSchema,
  type SchemaMembers,
} from './primitives.js';
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

const conditionSchema = membersSchema({
  attribute: stringSchema,
  op: operatorSchema,
  values: stringArraySchema,
} satisfies SchemaMembers<AbCondition>);

const cohortSchema = membersSchema({
  conditions: arrayOf(conditionSchema),
  percentage: percentageSchema,
} satisfies SchemaMembers<AbCohort>);

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
  } satisfies SchemaMembers<AbRule>),
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
  } satisfies Record<FlagMember, v.GenericSchema>),
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

/** The members a flag definition has, in their documented order; a `PATCH` names any of them. */
export const FLAG_MEMBERS: ReadonlyArray<FlagMember> = Object.freeze(['is_enabled', 'starts_at', 'ends_at', 'ab']);

/**
 * A flag update (PROTOCOL §10, `PATCH`): any of `is_enabled` (boolean),
 * `starts_at` and `ends_at` (timestamp or null) and `ab` (a rule, or null to
 * remove it), at least one. Each member is checked as in
 * {@link flagDefinitionSchema}. Unlike a definition, unknown members are
 * refused by name (a copied `is_active`, a typo such as `enabled`): a patch
 * that changed nothing it was meant to would pass unnoticed. The output holds
 * only the members present; whether the flag it makes is whole (`ends_at`
 * after `starts_at`) is checked on the result, see {@link applyFlagPatch}.
 */
export const flagPatchSchema = v.pipe(
  objectSchema,
  knownMembersOnly(FLAG_MEMBERS),
  v.check(
    (patch) => FLAG_MEMBERS.some((member) => patch[member] !== undefined),
    `must name at least one of ${FLAG_MEMBERS.join(', ')}`,
  ),
  membersSchema({
    is_enabled: v.optional(booleanSchema),
    starts_at: v.optional(timestampSchema),
    ends_at: v.optional(timestampSchema),
    ab: v.optional(v.nullable(abRuleSchema)),
  } satisfies Record<FlagMember, v.GenericSchema>),
  v.transform((patch): FlagPatch => patch),
);

/** Parses a flag update (see {@link flagPatchSchema}). */
export function parseFlagPatch(value: unknown, path: string): FlagPatch {
  return checkSchema(flagPatchSchema, value, path);
}

/**
 * The flag `patch` makes of `flag`: the members it names replaced, `ab: null`
 * removing the rule. The result is checked as a whole definition, so a patch
 * that moves `ends_at` before the flag's `starts_at` is refused at `path.ends_at`.
 *
 * @throws ValidationError when the result is not a valid flag.
 */
export function applyFlagPatch(flag: FlagDefinition, patch: FlagPatch, path: string): FlagDefinition {
  const merged: Record<string, unknown> = { ...flag };
  for (const member of FLAG_MEMBERS) if (patch[member] !== undefined) merged[member] = patch[member];
  return parseFlagDefinition(merged, path);
}

/** Parses a flag's A/B rule (see {@link abRuleSchema}). */
export function parseAbRule(value: unknown, path: string): AbRule {
  return checkSchema(abRuleSchema, value, path);
}

/** Parses a flag definition (see {@link flagDefinitionSchema}). */
export function parseFlagDefinition(value: unknown, path: string): FlagDefinition {
  return checkSchema(flagDefinitionSchema, value, path);
}
