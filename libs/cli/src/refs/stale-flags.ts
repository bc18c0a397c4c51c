/**
 * Which used flags are stale: fully on or fully off, unchanged for longer
 * than the threshold by the audit's dates. Pure: the caller passes the time.
 *
 * @packageDocumentation
 */
import type { CatalogFlag } from '../catalog/key-catalog.js';
import type { AuditChange, AuditSource } from './audit-source.js';

/** A flag that always answers the same, and has for long. */
export interface StaleFlag {
  readonly key: string;
  /** What it answers for everyone. */
  readonly state: 'on' | 'off';
  /** Its last change in the audit (RFC 3339). */
  readonly lastChangedAt: string;
  /** Whole days since then. */
  readonly days: number;
}

const DAY_MS = 86_400_000;

/** Parses `30d`, `12h`, `90m`, `45s` (or a number of days) to milliseconds; `undefined` when it is not one. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(d|h|m|s)?$/.exec(text.trim());
  if (match === null) return undefined;
  const unit = { d: DAY_MS, h: 3_600_000, m: 60_000, s: 1_000 }[(match[2] ?? 'd') as 'd' | 'h' | 'm' | 's'];
  return Number(match[1]) * unit;
}

function isSplit(ab: unknown): boolean {
  if (ab === undefined || ab === null) return false;
  if (typeof ab !== 'object') return true;
  const rule = ab as { percentage?: unknown; cohorts?: unknown };
  return (Array.isArray(rule.cohorts) && rule.cohorts.length > 0) || rule.percentage !== 100;
}

/**
 * What a flag answers for every user from `nowMs` on, or `undefined` when
 * that can still change by itself (a start or end still ahead) or differs
 * between users (an A/B rule). The A/B rule comes from the source, else
 * from the flag's last audit entry (`new.ab`).
 */
export function steadyState(flag: CatalogFlag, last: AuditChange | undefined, nowMs: number): 'on' | 'off' | undefined {
  const endsMs = flag.endsAt === null ? undefined : Date.parse(flag.endsAt);
  const startsMs = flag.startsAt === null ? undefined : Date.parse(flag.startsAt);
  if (!flag.isEnabled || (endsMs !== undefined && endsMs <= nowMs)) return 'off';
  if (endsMs !== undefined || (startsMs !== undefined && startsMs > nowMs)) return undefined;
  const recorded = last?.new as { ab?: unknown } | null | undefined;
  const split = flag.split ?? (recorded !== null && typeof recorded === 'object' ? isSplit(recorded.ab) : false);
  return split ? undefined : 'on';
}

/**
 * The stale flags among `keys`: steady (see {@link steadyState}) and last
 * changed more than `staleAfterMs` before `nowMs`. A flag the audit has no
 * change of is not reported: its age is not known.
 */
export async function findStaleFlags(
  keys: Iterable<string>,
  flags: ReadonlyMap<string, CatalogFlag>,
  audit: AuditSource,
  service: string,
  staleAfterMs: number,
  nowMs: number,
): Promise<StaleFlag[]> {
  const stale: StaleFlag[] = [];
  for (const key of [...new Set(keys)].sort()) {
    const flag = flags.get(key);
    if (flag === undefined) continue;
    const last = await audit.lastFlagChange(service, key);
    if (last === undefined) continue;
    const state = steadyState(flag, last, nowMs);
    const ageMs = nowMs - Date.parse(last.at);
    if (state !== undefined && ageMs > staleAfterMs) {
      stale.push({ key, state, lastChangedAt: last.at, days: Math.floor(ageMs / DAY_MS) });
    }
  }
  return stale;
}
