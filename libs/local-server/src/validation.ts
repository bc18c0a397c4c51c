/**
 * Parsers for everything the local server accepts from outside: admin API
 * bodies, secret writes, seed and state files. Each takes the untrusted value
 * and the JSON path it came from, and returns the typed value or throws a
 * {@link ValidationError} that names the path and what was wrong.
 *
 * No message ever repeats a secret value or an API key: where the offending
 * value could be one, only its JSON type is described.
 */
import { appendJsonPath } from './json-path.js';
import type {
  AbCohort,
  AbCondition,
  AbOperator,
  AbRule,
  ConfigValue,
  FlagDefinition,
  JsonValue,
  SecretType,
  TenantState,
} from './model.js';

/**
 * A value that does not have the shape it must have. Answered as
 * `400 invalid_request`; match on {@link ValidationError.code}.
 */
export class ValidationError extends Error {
  /** Stable error code, the `error` member of a 400 answer. */
  readonly code = 'invalid_request';
  /** Where the value was wrong, e.g. `flags.ab.cohorts[0].percentage`; empty for the whole value. */
  readonly path: string;
  /** What was wrong, without the path, e.g. `must be a number, got a string`. */
  readonly problem: string;

  /**
   * @param path - JSON path of the offending value (see `formatJsonPath`).
   * @param problem - what was wrong; never a secret value or a key.
   */
  constructor(path: string, problem: string, options?: { cause?: unknown }) {
    super(path === '' ? problem : `${path}: ${problem}`, options);
    this.name = 'ValidationError';
    this.path = path;
    this.problem = problem;
  }
}

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

/** The secret types of PROTOCOL §9. */
export const SECRET_TYPES: ReadonlyArray<SecretType> = Object.freeze(['text', 'file']);

/** The members {@link parseTenantPatch} accepts. */
export const TENANT_MEMBERS: ReadonlyArray<keyof TenantState> = Object.freeze([
  'overdue_days',
  'ab_addon',
  'quarantined_until',
  'write_rate_per_minute',
]);

const KEY = /^[A-Za-z0-9._-]{1,256}$/;
const SERVICE_KIND = /^[a-z0-9_-]{1,64}$/;
const SLUG = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const API_KEY = /^(svs|svp)_[A-Za-z0-9_-]{1,200}$/;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;
const MAX_ECHO = 40;

/**
 * Describes a value's JSON type for a message: `a string`, `a number`,
 * `an object`, `an array`, `null`, `nothing` (absent)... Never the value itself.
 */
export function describeType(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return Number.isFinite(value) ? 'a number' : `a non-finite number (${String(value)})`;
    case 'boolean':
      return 'a boolean';
    case 'object':
      return 'an object';
    default:
      return `a ${typeof value}`;
  }
}

/** Quotes a short, non-secret string (an enum value, a member name) for a message. */
function quote(text: string): string {
  return JSON.stringify(text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO)}…` : text);
}

function fail(path: string, problem: string): never {
  throw new ValidationError(path, problem);
}

/** Returns `value` when it is a plain JSON object (not null, not an array). */
export function parseObject(value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(path, `must be an object, got ${describeType(value)}`);
  }
  return value as Record<string, unknown>;
}

/**
 * Refuses members of `object` outside `allowed`, naming them; catches typos
 * such as `config` for `configs` that would otherwise drop data silently.
 */
export function rejectUnknownMembers(
  object: Record<string, unknown>,
  allowed: ReadonlyArray<string>,
  path: string,
): void {
  const unknown = Object.keys(object).filter((member) => !allowed.includes(member));
  if (unknown.length > 0) {
    const names = unknown.map(quote).join(', ');
    fail(path, `unknown member${unknown.length === 1 ? '' : 's'} ${names}; allowed: ${allowed.join(', ')}`);
  }
}

/** Returns `value` when it is a string. */
export function parseString(value: unknown, path: string): string {
  if (typeof value !== 'string') fail(path, `must be a string, got ${describeType(value)}`);
  return value;
}

/** Returns `value` when it is a boolean. */
export function parseBoolean(value: unknown, path: string): boolean {
  if (typeof value !== 'boolean') fail(path, `must be a boolean, got ${describeType(value)}`);
  return value;
}

/** Returns `value` when it is a safe integer of at least `min`. */
export function parseInteger(value: unknown, path: string, min: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    fail(
      path,
      `must be an integer, got ${typeof value === 'number' && Number.isFinite(value) ? String(value) : describeType(value)}`,
    );
  }
  if (value < min) fail(path, `must be at least ${min}, got ${value}`);
  return value;
}

/** Returns `value` when it is a finite number from 0 to 100 inclusive. */
export function parsePercentage(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    fail(path, `must be a number from 0 to 100, got ${describeType(value)}`);
  }
  if (value < 0 || value > 100) fail(path, `must be a number from 0 to 100, got ${value}`);
  return value;
}

/** Returns `value` when it is an array of strings. */
export function parseStringArray(value: unknown, path: string): string[] {
  if (!Array.isArray(value)) fail(path, `must be an array of strings, got ${describeType(value)}`);
  value.forEach((element, index) => parseString(element, appendJsonPath(path, index)));
  return value as string[];
}

/** Whether `key` is a valid flag or secret key: 1–256 characters of `[A-Za-z0-9._-]` (PROTOCOL §4). */
export function isValidKey(key: string): boolean {
  return KEY.test(key);
}

/**
 * Returns `value` when it is a valid flag, secret or config key (all three
 * share the charset and length of PROTOCOL §4).
 */
export function parseKey(value: unknown, path: string, what: 'flag' | 'secret' | 'config'): string {
  if (typeof value !== 'string') fail(path, `a ${what} key must be a string, got ${describeType(value)}`);
  if (!isValidKey(value)) {
    fail(path, `a ${what} key must be 1–256 characters of [A-Za-z0-9._-], got ${value.length} characters`);
  }
  return value;
}

/** Whether `slug` is a valid service slug: a DNS label of `[a-z0-9-]`, 1–63 characters. */
export function isValidSlug(slug: string): boolean {
  return SLUG.test(slug);
}

/** Returns `value` when it is a valid service slug (see {@link isValidSlug}). */
export function parseSlug(value: unknown, path: string): string {
  if (typeof value !== 'string') fail(path, `a service slug must be a string, got ${describeType(value)}`);
  if (!isValidSlug(value)) {
    fail(path, 'a service slug must be 1–63 characters of [a-z0-9-] that start and end with a letter or digit');
  }
  return value;
}

/**
 * Formats an instant as the wire does: UTC, `Z`, whole seconds, with
 * milliseconds only when they are not zero (`2026-11-22T10:00:00Z`,
 * `2026-11-22T10:00:00.250Z`).
 */
export function formatTimestamp(date: Date): string {
  const iso = date.toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) {
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    return leap ? 29 : 28;
  }
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * Parses an RFC 3339 date-time with `Z` or a numeric offset, or `null`
 * (unbounded), and returns it normalised by {@link formatTimestamp}. Digits
 * beyond milliseconds are truncated. Date-only strings, local times without
 * an offset, impossible dates and leap seconds are refused.
 */
export function parseTimestamp(value: unknown, path: string): string | null {
  if (value === null) return null;
  const expected = 'must be an RFC 3339 date-time with Z or an offset, e.g. "2026-11-22T10:00:00Z"';
  if (typeof value !== 'string') fail(path, `${expected}, or null; got ${describeType(value)}`);
  const match = RFC3339.exec(value);
  if (match === null) fail(path, `${expected}; got ${quote(value)}`);
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, oh, om] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) {
    fail(path, `is not a valid date-time: ${quote(value)}`);
  }
  let offsetMinutes = 0;
  if (zulu === undefined) {
    const offsetHours = Number(oh);
    const offsetMins = Number(om);
    if (offsetHours > 23 || offsetMins > 59) fail(path, `has an invalid UTC offset: ${quote(value)}`);
    offsetMinutes = (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const millis = fraction === undefined ? 0 : Number(fraction.slice(1, 4).padEnd(3, '0'));
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute - offsetMinutes, second, millis);
  const utcYear = date.getUTCFullYear();
  if (utcYear < 0 || utcYear > 9999) fail(path, `is out of range once converted to UTC: ${quote(value)}`);
  return formatTimestamp(date);
}

/**
 * Checks that `value` is JSON: strings, finite numbers, booleans, null,
 * arrays and plain objects of those.
 */
export function parseJsonValue(value: unknown, path: string): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) fail(path, `must be JSON, got ${describeType(value)}`);
    return value;
  }
  if (Array.isArray(value)) {
    value.forEach((element, index) => parseJsonValue(element, appendJsonPath(path, index)));
    return value as JsonValue[];
  }
  if (typeof value === 'object') {
    for (const [member, element] of Object.entries(value)) {
      parseJsonValue(element, appendJsonPath(path, member));
    }
    return value as { [key: string]: JsonValue };
  }
  return fail(path, `must be JSON, got ${describeType(value)}`);
}

/**
 * Returns `value` when it is a config value (PROTOCOL §4): a string, finite
 * number, boolean, null, or an array whose elements are any JSON. An object
 * is refused with the problem `objects are not config values`.
 */
export function parseConfigValue(value: unknown, path: string): ConfigValue {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    fail(path, 'objects are not config values');
  }
  if (value === undefined) fail(path, 'a config value is required (null is allowed)');
  return parseJsonValue(value, path) as ConfigValue;
}

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

/** Parses a secret type, `text` or `file`; absent means `text`. */
export function parseSecretType(value: unknown, path: string): SecretType {
  if (value === undefined) return 'text';
  if (typeof value !== 'string' || !(SECRET_TYPES as ReadonlyArray<string>).includes(value)) {
    const got = typeof value === 'string' ? quote(value) : describeType(value);
    fail(path, `must be one of ${SECRET_TYPES.join(', ')}; got ${got}`);
  }
  return value as SecretType;
}

/**
 * Parses a secret write body (PROTOCOL §9): `value` string (never echoed)
 * and `type` (default `text`).
 */
export function parseSecretWrite(value: unknown, path: string): { value: string; type: SecretType } {
  const object = parseObject(value, path);
  const secret = object['value'];
  if (typeof secret !== 'string') {
    fail(appendJsonPath(path, 'value'), `a secret value must be a string, got ${describeType(secret)}`);
  }
  return { value: secret, type: parseSecretType(object['type'], appendJsonPath(path, 'type')) };
}

/** Parses a service kind: 1–64 characters of `[a-z0-9_-]` (`backend`, `frontend`, ...). */
export function parseServiceKind(value: unknown, path: string): string {
  if (typeof value !== 'string') fail(path, `a service kind must be a string, got ${describeType(value)}`);
  if (!SERVICE_KIND.test(value))
    fail(path, `a service kind must be 1–64 characters of [a-z0-9_-], got ${quote(value)}`);
  return value;
}

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

/**
 * Returns `value` when it is an API key: `svs_` (secret) or `svp_` (public)
 * followed by 1–200 characters of `[A-Za-z0-9_-]`. The key is never echoed.
 */
export function parseApiKey(value: unknown, path: string): string {
  if (typeof value !== 'string') fail(path, `an API key must be a string, got ${describeType(value)}`);
  if (!API_KEY.test(value)) {
    fail(path, 'an API key must be "svs_" or "svp_" followed by 1–200 characters of [A-Za-z0-9_-]');
  }
  return value;
}

/** The type of a key that {@link parseApiKey} accepted: `svs_…` is `secret`, anything else `public`. */
export function keyTypeOf(key: string): 'secret' | 'public' {
  return key.startsWith('svs_') ? 'secret' : 'public';
}
