/**
 * The flag keys a guard names, checked when the guard is made.
 *
 * @packageDocumentation
 */
import { InvalidArgumentError } from '../errors.js';
import { isVaneKey } from '../util/vane-key.js';

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
    if (typeof key !== 'string' || !isVaneKey(key))
      throw new InvalidArgumentError(`${where}: flag keys are 1 to 256 characters from [A-Za-z0-9._-]`);
  }
  return [...new Set(list as string[])];
}
