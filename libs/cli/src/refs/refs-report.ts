/**
 * What `vane refs` found, checked against a service's keys: the cleanup list.
 *
 * @packageDocumentation
 */
import type { KeyCatalog } from '../catalog/key-catalog.js';
import type { KeyKind, KeyUse } from './key-use.js';
import type { StaleFlag } from './stale-flags.js';

/** A key the code reads that the service does not define, with the places that read it. */
export interface UndefinedKey {
  readonly kind: KeyKind;
  readonly key: string;
  readonly uses: readonly KeyUse[];
}

/** The report of `vane refs`; `--json` prints it as is. */
export interface RefsReport {
  /** Every key use found, sorted by file and place. */
  readonly uses: readonly KeyUse[];
  /** The uses whose key is built at run time (also in `uses`). */
  readonly dynamic: readonly KeyUse[];
  /** With a source: keys used but not defined (an error: exit status 1). */
  readonly undefinedKeys?: readonly UndefinedKey[];
  /** With a source: flags defined but read nowhere. */
  readonly unusedFlags?: readonly string[];
  /** With an audit: flags used but steady for longer than `--stale-after`, with the places that read them. */
  readonly staleFlags?: readonly (StaleFlag & { readonly uses: readonly KeyUse[] })[];
}

function definedKeys(catalog: KeyCatalog, kind: KeyKind): ReadonlySet<string> | undefined {
  if (kind === 'config') return new Set(catalog.configs.keys());
  if (kind === 'flag') return new Set(catalog.flags.keys());
  return catalog.secrets === null ? undefined : new Set(catalog.secrets.keys());
}

/**
 * The keys used but not defined (per kind; secrets only when the source
 * could see them) and the flags defined but unused.
 */
export function compareWithCatalog(
  uses: readonly KeyUse[],
  catalog: KeyCatalog,
): { undefinedKeys: UndefinedKey[]; unusedFlags: string[] } {
  const missing = new Map<string, UndefinedKey & { uses: KeyUse[] }>();
  for (const use of uses) {
    if (use.key === null) continue;
    const defined = definedKeys(catalog, use.kind);
    if (defined === undefined || defined.has(use.key)) continue;
    const id = `${use.kind}\u0000${use.key}`;
    const entry = missing.get(id) ?? { kind: use.kind, key: use.key, uses: [] };
    entry.uses.push(use);
    missing.set(id, entry);
  }
  const usedFlags = new Set(uses.filter((use) => use.kind === 'flag' && use.key !== null).map((use) => use.key));
  const unusedFlags = [...catalog.flags.keys()].filter((key) => !usedFlags.has(key)).sort();
  return { undefinedKeys: [...missing.values()], unusedFlags };
}

function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd(),
  );
}

const where = (use: KeyUse): string => `${use.file}:${use.line}`;

/** `1 flag`, `2 flags`. */
const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** The report as text for people: a table of uses, then each finding with the lines that read it. */
export function formatReport(report: RefsReport): string[] {
  const lines: string[] = [];
  if (report.uses.length === 0) lines.push('no Vane key is read in these files');
  else {
    lines.push(
      ...table([
        ['KIND', 'KEY', 'WHERE', 'VIA'],
        ...report.uses.map((use) => [use.kind, use.key ?? `(dynamic: ${use.expression ?? '?'})`, where(use), use.via]),
      ]),
    );
  }
  lines.push('', `${count(report.uses.length, 'use')}, ${report.dynamic.length} with keys built at run time`);
  if (report.undefinedKeys !== undefined && report.undefinedKeys.length > 0) {
    lines.push('', `error: ${count(report.undefinedKeys.length, 'key')} used but not defined on the service:`);
    for (const entry of report.undefinedKeys) {
      lines.push(`  ${entry.kind} ${entry.key}: ${entry.uses.map(where).join(', ')}`);
    }
  }
  if (report.unusedFlags !== undefined && report.unusedFlags.length > 0) {
    const note = report.dynamic.some((use) => use.kind === 'flag') ? ' (unless read by a key built at run time)' : '';
    lines.push('', `${count(report.unusedFlags.length, 'flag')} defined but read nowhere${note}:`);
    for (const key of report.unusedFlags) lines.push(`  ${key}`);
  }
  if (report.staleFlags !== undefined && report.staleFlags.length > 0) {
    lines.push(
      '',
      `${count(report.staleFlags.length, 'flag')} fully on or off and unchanged for long (remove them from the code):`,
    );
    for (const flag of report.staleFlags) {
      lines.push(
        `  ${flag.key}: ${flag.state} since ${flag.lastChangedAt} (${flag.days} days): ${flag.uses.map(where).join(', ')}`,
      );
    }
  }
  return lines;
}
