/**
 * What changed between the keys a declaration file registers and the
 * service's: the lines `vane types --check` prints.
 *
 * @packageDocumentation
 */
import type { KeyCatalog } from '../catalog/key-catalog.js';
import type { DeclaredKeys } from './read-declaration.js';

/** One key that differs. */
export interface KeyChange {
  readonly change: 'added' | 'removed' | 'retyped';
  readonly kind: 'config' | 'flag' | 'secret';
  readonly key: string;
  /** The type in the file (removed, retyped). */
  readonly was?: string;
  /** The type on the service (added, retyped). */
  readonly now?: string;
}

function diffMaps(
  kind: KeyChange['kind'],
  file: ReadonlyMap<string, string>,
  service: ReadonlyMap<string, string>,
  changes: KeyChange[],
): void {
  for (const [key, now] of service) {
    const was = file.get(key);
    if (was === undefined) changes.push({ change: 'added', kind, key, now });
    else if (was !== now) changes.push({ change: 'retyped', kind, key, was, now });
  }
  for (const [key, was] of file) if (!service.has(key)) changes.push({ change: 'removed', kind, key, was });
}

/** The keys added, removed and retyped on the service since the file was written, sorted by kind and key. */
export function keyDiff(declared: DeclaredKeys, catalog: KeyCatalog): KeyChange[] {
  const changes: KeyChange[] = [];
  diffMaps('config', declared.configs, catalog.configs, changes);
  const asTypes = (keys: Iterable<string>): Map<string, string> => new Map([...keys].map((key) => [key, 'flag']));
  diffMaps('flag', asTypes(declared.flags), asTypes(catalog.flags.keys()), changes);
  diffMaps('secret', declared.secrets ?? new Map(), catalog.secrets ?? new Map(), changes);
  const order = { config: 0, flag: 1, secret: 2 };
  return changes.sort((a, b) => order[a.kind] - order[b.kind] || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** One line for people: `+ config db.port: number`, `- flag beta`, `~ config db.port: string → number`. */
export function describeChange(change: KeyChange): string {
  const type = (text: string | undefined): string => (change.kind === 'flag' || text === undefined ? '' : `: ${text}`);
  if (change.change === 'added') return `+ ${change.kind} ${change.key}${type(change.now)} (added)`;
  if (change.change === 'removed') return `- ${change.kind} ${change.key}${type(change.was)} (removed)`;
  return `~ ${change.kind} ${change.key}: ${change.was} → ${change.now} (retyped)`;
}
