/**
 * The flag keys a guard names, checked when the guard is made.
 *
 * @packageDocumentation
 */
import { InvalidArgumentError } from '@vane/client';

/** A flag key: 1 to 256 characters of `[A-Za-z0-9._-]` (the service's own rule). */
const FLAG_KEY = /^[A-Za-z0-9._-]{1,256}$/;

/**
 * The keys of a guard, without duplicates.
 *
 * @param keys - one key, or a non-empty array of keys.
 * @param where - what names them, for the error message.
 * @throws InvalidArgumentError - for an empty list or a key that breaks the pattern.
 */
export function checkFlagKeys(keys: unknown, where: string): readonly string[] {
  const list: unknown = typeof keys === 'string' ? [keys] : keys;
  if (!Array.isArray(list) || list.length === 0)
    throw new InvalidArgumentError(`${where}: give a flag key or a non-empty array of flag keys`);
  for (const key of list as unknown[]) {
    if (typeof key !== 'string' || !FLAG_KEY.test(key))
      throw new InvalidArgumentError(`${where}: flag keys are 1 to 256 characters from [A-Za-z0-9._-]`);
  }
  return [...new Set(list as string[])];
}
