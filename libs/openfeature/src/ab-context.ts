/**
 * From an OpenFeature evaluation context to the user context of a Vane A/B
 * evaluation, checked before anything is sent.
 *
 * @packageDocumentation
 */
import type { EvaluationContext } from '@openfeature/server-sdk';
import type { AbContext } from '@vane/client-core';
import { abContextKey } from '@vane/client-core';

/** A usable A/B context, with the key that groups evaluations of the same context into one call. */
export interface ValidAbContext {
  readonly ok: true;
  readonly context: AbContext;
  /** Same user and same attributes give the same key. */
  readonly batchKey: string;
}

/** A context the service would refuse, and why (names the attribute and its type, never its value). */
export interface InvalidAbContext {
  readonly ok: false;
  readonly message: string;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (v instanceof Date) return 'Date';
  return typeof v;
}

/**
 * Reads `targetingKey` as the user id and every other entry as a targeting
 * attribute. Attributes must be strings; `null` and `undefined` mean unset
 * and are dropped; nothing is converted (a number or a Date is refused, as the
 * service would refuse it).
 *
 * @returns `null` when the context has no `targetingKey`: the user is
 *   anonymous, and an A/B flag is off for an anonymous user (the rule of every
 *   Vane adapter; nothing is sent); else the context or why it is unusable.
 */
export function abContextOf(context: EvaluationContext): ValidAbContext | InvalidAbContext | null {
  const userId: unknown = context.targetingKey;
  if (userId === undefined || userId === null) return null;
  if (typeof userId !== 'string' || userId === '') {
    return { ok: false, message: `targetingKey must be a non-empty string, got ${typeName(userId)}` };
  }
  // No prototype: an attribute named `__proto__` is kept and sent like any other.
  const attributes: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(context)) {
    if (name === 'targetingKey' || value === null || value === undefined) continue;
    if (typeof value !== 'string') {
      return { ok: false, message: `attribute "${name}" must be a string, got ${typeName(value)}` };
    }
    attributes[name] = value;
  }
  return { ok: true, context: { userId, attributes }, batchKey: abContextKey(userId, attributes) };
}
