import * as v from 'valibot';
import type { TenantState } from '../domain/model.js';
import {
  booleanSchema,
  integerSchema,
  knownMembersOnly,
  membersSchema,
  objectSchema,
  type SchemaMembers,
} from './primitives.js';
import { checkSchema } from './schema-check.js';
import { timestampSchema } from './timestamp.js';

/** The members {@link parseTenantPatch} accepts. */
export const TENANT_MEMBERS: ReadonlyArray<keyof TenantState> = Object.freeze([
  'overdue_days',
  'ab_addon',
  'quarantined_until',
  'write_rate_per_minute',
]);

/**
 * A tenant update (PROTOCOL §10): any subset of `overdue_days` (integer
 * ≥ 0), `ab_addon` (boolean), `quarantined_until` (timestamp or null) and
 * `write_rate_per_minute` (integer ≥ 1). Unknown members are refused, naming
 * them. The output holds only the members present.
 */
export const tenantPatchSchema = v.pipe(
  objectSchema,
  knownMembersOnly(TENANT_MEMBERS),
  membersSchema({
    overdue_days: v.optional(integerSchema(0)),
    ab_addon: v.optional(booleanSchema),
    quarantined_until: v.optional(timestampSchema),
    write_rate_per_minute: v.optional(integerSchema(1)),
  } satisfies SchemaMembers<TenantState>),
);

/** Parses a tenant update (see {@link tenantPatchSchema}). */
export function parseTenantPatch(value: unknown, path: string): Partial<TenantState> {
  return checkSchema(tenantPatchSchema, value, path);
}
