/** Parsers of JSON's building blocks: objects, strings, booleans, integers, percentages, string arrays, any JSON. */
import { appendJsonPath } from '../json-path.js';
import type { JsonValue } from '../model.js';
import { describeType, quote } from './json-type.js';
import { fail } from './validation-error.js';

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
