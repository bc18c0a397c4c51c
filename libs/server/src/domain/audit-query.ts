/**
 * Reading the audit (PROTOCOL §10): filters, newest first, and a cursor that
 * stays valid while entries are appended.
 */
import type { AuditAction, AuditEntry, AuditRecord, JsonValue } from './model.js';

/** The filters of `GET /admin/v1/audit`; each one given must hold. */
export interface AuditFilter {
  readonly service?: string;
  readonly key?: string;
  readonly actor?: string;
  /** Entries at or after this instant (ms since the epoch). */
  readonly sinceMs?: number;
  /** Entries before this instant (ms since the epoch). */
  readonly untilMs?: number;
  /** Which entries the asker may see at all (its token's scope). */
  readonly visible?: (entry: AuditRecord) => boolean;
}

/**
 * One entry as the admin API shows it, with its place in the chain (`prev`,
 * `hash`, `keyed_by`) so an auditor can keep a head and check it later;
 * never a secret value (none is ever recorded).
 */
export interface AuditView {
  seq: number;
  at: string;
  actor: string;
  action: AuditRecord['action'];
  service: string | null;
  key: string | null;
  revision: number | null;
  version?: number | null;
  old?: JsonValue;
  new?: JsonValue;
  /** The hash of the entry before (64 zeros for the first). */
  prev: string;
  /** This entry's hash (an HMAC when `keyed_by` is set). */
  hash: string;
  /** The root key whose audit key made `hash`, when the chain is keyed. */
  keyed_by?: string;
}

/** One page of the audit. */
export interface AuditPage {
  entries: AuditView[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  next: string | null;
}

const SECRET_ACTIONS: ReadonlySet<string> = new Set<AuditAction>([
  'secret.set',
  'secret.delete',
  'secret.version.delete',
]);

/**
 * One page of entries matching `filter`, newest first, starting below
 * `cursor` (an earlier page's `next`).
 *
 * @throws RangeError for a cursor no page of this audit gave.
 */
export function queryAudit(
  audit: readonly AuditRecord[],
  filter: AuditFilter,
  limit: number,
  cursor: string | undefined,
): AuditPage {
  let start = audit.length - 1;
  if (cursor !== undefined) {
    const below = decodeCursor(cursor);
    // Entries are numbered from 1 without gaps, so `seq` n sits at index n - 1.
    start = Math.min(start, below - 2);
  }
  const entries: AuditView[] = [];
  let index = start;
  for (; index >= 0 && entries.length < limit; index--) {
    const entry = audit[index]!;
    if (matches(entry, filter)) entries.push(view(entry));
  }
  const more = entries.length === limit && index >= 0;
  return { entries, next: more ? encodeCursor(entries[entries.length - 1]!.seq) : null };
}

/** A service's secret trail in the shape of `GET /admin/v1/services/{slug}/audit`, oldest first. */
export function secretTrail(audit: readonly AuditRecord[], slug: string): AuditEntry[] {
  const trail: AuditEntry[] = [];
  for (const entry of audit) {
    if (entry.service !== slug || !SECRET_ACTIONS.has(entry.action)) continue;
    trail.push({
      at: entry.at,
      action: entry.action as AuditAction,
      key: entry.key!,
      version: entry.version ?? null,
      actor: entry.actor,
    });
  }
  return trail;
}

function matches(entry: AuditRecord, filter: AuditFilter): boolean {
  if (filter.service !== undefined && entry.service !== filter.service) return false;
  if (filter.key !== undefined && entry.key !== filter.key) return false;
  if (filter.actor !== undefined && entry.actor !== filter.actor) return false;
  if (filter.sinceMs !== undefined || filter.untilMs !== undefined) {
    const at = Date.parse(entry.at);
    if (filter.sinceMs !== undefined && at < filter.sinceMs) return false;
    if (filter.untilMs !== undefined && at >= filter.untilMs) return false;
  }
  return filter.visible?.(entry) ?? true;
}

function view(entry: AuditRecord): AuditView {
  return { ...entry };
}

function encodeCursor(seq: number): string {
  return Buffer.from(`a${seq}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^a([1-9]\d{0,15})$/.exec(text);
  if (!match) throw new RangeError('cursor: not a cursor of this audit (pass the "next" of an earlier page)');
  return Number(match[1]);
}
