import { appendJsonPath } from '../json-path.js';
import type { TenantState } from '../model.js';
import { parseBoolean, parseInteger, parseObject, rejectUnknownMembers } from './primitives.js';
import { parseTimestamp } from './timestamp.js';

/** The members {@link parseTenantPatch} accepts. */
export const TENANT_MEMBERS: ReadonlyArray<keyof TenantState> = Object.freeze([
  'overdue_days',
  'ab_addon',
  'quarantined_until',
  'write_rate_per_minute',
]);

/**
 * Parses a tenant update (PROTOCOL §10): any subset of `overdue_days`
 * (integer ≥ 0), `ab_addon` (boolean), `quarantined_until` (timestamp or
 * null) and `write_rate_per_minute` (integer ≥ 1). Unknown members are
 * refused, naming them. The result holds only the members present.
 */
export function parseTenantPatch(value: unknown, path: string): Partial<TenantState> {
  const object = parseObject(value, path);
  rejectUnknownMembers(object, TENANT_MEMBERS, path);
  const patch: Partial<TenantState> = {};
  if (object['overdue_days'] !== undefined) {
    patch.overdue_days = parseInteger(object['overdue_days'], appendJsonPath(path, 'overdue_days'), 0);
  }
  if (object['ab_addon'] !== undefined) {
    patch.ab_addon = parseBoolean(object['ab_addon'], appendJsonPath(path, 'ab_addon'));
  }
  if (object['quarantined_until'] !== undefined) {
    patch.quarantined_until = parseTimestamp(object['quarantined_until'], appendJsonPath(path, 'quarantined_until'));
  }
  if (object['write_rate_per_minute'] !== undefined) {
    patch.write_rate_per_minute = parseInteger(
      object['write_rate_per_minute'],
      appendJsonPath(path, 'write_rate_per_minute'),
      1,
    );
  }
  return patch;
}
