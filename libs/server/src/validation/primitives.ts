/**
 * Schemas of JSON's building blocks: objects (with their members), strings,
 * booleans, integers, percentages, string arrays, any JSON. Each message
 * describes a wrong value by its JSON type, or echoes a number, never a string.
 */
import * as v from 'valibot';
import type { JsonValue } from '../domain/model.js';
import { describeType, quote } from './json-type.js';
import { checkSchema, messageOf } from './schema-check.js';

/** `got …` for a message: a finite number as itself, anything else by its JSON type. */
function got(input: unknown): string {
  return typeof input === 'number' && Number.isFinite(input) ? String(input) : describeType(input);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A JSON object (not null, not an array: valibot's `object` and `record`
 * take an array as an object of its indices).
 */
export const objectSchema = v.custom<Record<string, unknown>>(
  isPlainObject,
  (issue) => `must be an object, got ${describeType(issue.input)}`,
);

/**
 * An object with the given members, checked in their order; other members
 * are ignored (and left out of the output), as are members given as
 * `undefined`. A missing required member gets
 * the message its own schema gives for nothing (`must be a boolean, got
 * nothing`), not valibot's generic one.
 */
export function membersSchema<const TEntries extends v.ObjectEntries>(entries: TEntries) {
  return v.pipe(
    objectSchema,
    v.object(entries, (issue) => {
      const member = issue.path?.[issue.path.length - 1]?.key;
      const schema = typeof member === 'string' && Object.hasOwn(entries, member) ? entries[member] : undefined;
      return (schema && messageOf(schema, undefined)) ?? `must be an object, got ${describeType(issue.input)}`;
    }),
    // A member given as `undefined` (in-process callers) counts as absent, as it would in JSON.
    v.transform((output) => {
      for (const member of Object.keys(output)) {
        if ((output as Record<string, unknown>)[member] === undefined)
          delete (output as Record<string, unknown>)[member];
      }
      return output;
    }),
  );
}

/**
 * Refuses members of an object outside `allowed`, naming them; catches typos
 * such as `config` for `configs` that would otherwise drop data silently.
 */
export function knownMembersOnly(allowed: ReadonlyArray<string>) {
  return v.rawCheck<Record<string, unknown>>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const unknown = Object.keys(dataset.value).filter((member) => !allowed.includes(member));
    if (unknown.length > 0) {
      const names = unknown.map(quote).join(', ');
      addIssue({
        message: `unknown member${unknown.length === 1 ? '' : 's'} ${names}; allowed: ${allowed.join(', ')}`,
      });
    }
  });
}

/** A string. */
export const stringSchema = v.string((issue) => `must be a string, got ${describeType(issue.input)}`);

/** A boolean. */
export const booleanSchema = v.boolean((issue) => `must be a boolean, got ${describeType(issue.input)}`);

/** A safe integer of at least `min`. */
export function integerSchema(min: number) {
  const notInteger = (issue: v.BaseIssue<unknown>): string => `must be an integer, got ${got(issue.input)}`;
  return v.pipe(
    v.number(notInteger),
    v.safeInteger(notInteger),
    v.minValue(min, (issue) => `must be at least ${min}, got ${got(issue.input)}`),
  );
}

/** A finite number from 0 to 100 inclusive. */
export const percentageSchema = v.pipe(
  v.number((issue) => `must be a number from 0 to 100, got ${describeType(issue.input)}`),
  v.finite((issue) => `must be a number from 0 to 100, got ${describeType(issue.input)}`),
  v.minValue(0, (issue) => `must be a number from 0 to 100, got ${got(issue.input)}`),
  v.maxValue(100, (issue) => `must be a number from 0 to 100, got ${got(issue.input)}`),
);

/** An array of strings. */
export const stringArraySchema = v.array(
  stringSchema,
  (issue) => `must be an array of strings, got ${describeType(issue.input)}`,
);

/** A value met while walking a JSON tree, with the way back to the root. */
interface WalkNode {
  value: unknown;
  parent: WalkNode | undefined;
  key: string | number;
}

/**
 * Where `value` stops being JSON (a non-finite number, a function, …): the
 * path segments and the offending value, or `undefined` when it is all JSON.
 * Iterative, so a deep value cannot overflow the stack here; the path is only
 * built for the value at fault.
 */
function firstNonJson(value: unknown): { at: Array<string | number>; wrong: unknown } | undefined {
  const stack: WalkNode[] = [{ value, parent: undefined, key: '' }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const current = node.value;
    if (current === null || typeof current === 'string' || typeof current === 'boolean') continue;
    if (typeof current === 'number' && Number.isFinite(current)) continue;
    if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index--) {
        stack.push({ value: current[index], parent: node, key: index });
      }
      continue;
    }
    if (typeof current === 'object') {
      const entries = Object.entries(current);
      for (let index = entries.length - 1; index >= 0; index--) {
        stack.push({ value: entries[index]![1], parent: node, key: entries[index]![0] });
      }
      continue;
    }
    const at: Array<string | number> = [];
    for (let step: WalkNode | undefined = node; step?.parent !== undefined; step = step.parent) at.unshift(step.key);
    return { at, wrong: current };
  }
  return undefined;
}

/** Any JSON: strings, finite numbers, booleans, null, arrays and plain objects of those. */
export const jsonValueSchema = v.pipe(
  v.unknown(),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const found = firstNonJson(dataset.value);
    if (found === undefined) return;
    const { at, wrong } = found;
    addIssue({
      message: `must be JSON, got ${describeType(wrong)}`,
      path:
        at.length === 0
          ? undefined
          : (at.map((key) => ({ type: 'unknown', origin: 'value', input: undefined, key, value: undefined })) as [
              v.UnknownPathItem,
              ...v.UnknownPathItem[],
            ]),
    });
  }),
  v.transform((value) => value as JsonValue),
);

/** Returns `value` when it is a plain JSON object (not null, not an array). */
export function parseObject(value: unknown, path: string): Record<string, unknown> {
  return checkSchema(objectSchema, value, path);
}

/**
 * An object schema's entries for the members of a model type `T`, exactly:
 * entries written `satisfies SchemaMembers<T>` fail to compile when they miss
 * a member of `T` or name one it lacks. The parser's schemas and the
 * published seed schema are both held to the model's types this way.
 */
export type SchemaMembers<T> = Record<keyof T, v.GenericSchema>;

/**
 * The members of an object schema's `entries` in the order a message lists
 * them (see {@link knownMembersOnly}), where that order is not the schema's
 * own. The list is held to the entries: a member missing from `order`, or
 * one the entries lack, does not compile (and throws, should a cast hide it).
 */
export function membersInOrder<TMember extends string, const TOrder extends ReadonlyArray<TMember>>(
  entries: Readonly<Record<TMember, unknown>>,
  order: TOrder &
    ([Exclude<TMember, TOrder[number]>] extends [never]
      ? unknown
      : { readonly missing: Exclude<TMember, TOrder[number]> }),
): ReadonlyArray<TMember> {
  const members = Object.keys(entries);
  if (order.length !== members.length || members.some((member) => !order.includes(member as TMember))) {
    throw new Error(`members out of step: [${order.join(', ')}] for [${members.join(', ')}]`);
  }
  return Object.freeze([...order]);
}

/** Refuses members of `object` outside `allowed`, naming them (see {@link knownMembersOnly}). */
export function rejectUnknownMembers(
  object: Record<string, unknown>,
  allowed: ReadonlyArray<string>,
  path: string,
): void {
  checkSchema(v.pipe(objectSchema, knownMembersOnly(allowed)), object, path);
}

/** Returns `value` when it is a string. */
export function parseString(value: unknown, path: string): string {
  return checkSchema(stringSchema, value, path);
}

/** Returns `value` when it is a boolean. */
export function parseBoolean(value: unknown, path: string): boolean {
  return checkSchema(booleanSchema, value, path);
}

/** Returns `value` when it is a safe integer of at least `min`. */
export function parseInteger(value: unknown, path: string, min: number): number {
  return checkSchema(integerSchema(min), value, path);
}

/** Returns `value` when it is a finite number from 0 to 100 inclusive. */
export function parsePercentage(value: unknown, path: string): number {
  return checkSchema(percentageSchema, value, path);
}

/** Returns `value` when it is an array of strings. */
export function parseStringArray(value: unknown, path: string): string[] {
  return checkSchema(stringArraySchema, value, path);
}

/** Checks that `value` is JSON (see {@link jsonValueSchema}). */
export function parseJsonValue(value: unknown, path: string): JsonValue {
  return checkSchema(jsonValueSchema, value, path);
}
