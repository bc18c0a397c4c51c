/**
 * Which keys of a snapshot's group changed between two revisions: the one
 * rule behind `@vane/client`'s change events and `@vane/browser`'s updates.
 */

/**
 * Calls `changed` for every key whose value differs between `before` and
 * `after`: changed and deleted keys in `before`'s order, then added keys.
 * Equal values (by `same`) call nothing; no `before` means every key is new.
 *
 * @param same - whether two values of one key are the same for this group.
 * @param changed - told the key and its values (`undefined` where absent).
 */
export function diffMaps<T>(
  before: ReadonlyMap<string, T> | undefined,
  after: ReadonlyMap<string, T>,
  same: (a: T, b: T) => boolean,
  changed: (key: string, before: T | undefined, after: T | undefined) => void,
): void {
  if (before === after) return;
  if (before)
    for (const [key, a] of before) {
      const b = after.get(key);
      if (b === undefined || !same(a, b)) changed(key, a, b);
    }
  for (const [key, b] of after) if (!before?.has(key)) changed(key, undefined, b);
}

/** The keys whose value differs between `before` and `after` (set, changed, or gone), in {@link diffMaps}'s order. */
export function changedKeys<T>(
  before: ReadonlyMap<string, T> | undefined,
  after: ReadonlyMap<string, T>,
  same: (a: T, b: T) => boolean,
): string[] {
  const keys: string[] = [];
  diffMaps(before, after, same, (key) => keys.push(key));
  return keys;
}
