/**
 * The rows of `vane_changes` as this store reads and writes them: one
 * sealed record per row, with the revision it made and what it touched.
 */
import type { ChangeSet } from '../domain/store.js';
import type { StoredChange } from '../sealing/sealing-codec.js';
import type { PostgresSql } from './postgres-driver.js';
import type { CancellableQuery } from './bounded-statement.js';

/** A change as the table holds it. */
export interface ChangeRow {
  seq: number;
  record: string;
  change_set: string | null;
  committed_at_ms: number;
}

/** A change set in its stored form. */
export interface StoredChangeSet {
  service: boolean;
  configs: string[];
  flags: string[];
  secrets: string[];
}

/** A change a write made, as it will be inserted. */
export interface RecordedChange {
  /** Sealed when recorded, so a data key a later write of the same batch makes never seals an earlier record. */
  readonly change: StoredChange;
  changeSet: StoredChangeSet | null;
  committedAtMs: number;
}

/** The changes committed after sequence number `seq`, in order. */
export function changesAfter(sql: PostgresSql, seq: number): CancellableQuery<ChangeRow[]> {
  return sql<ChangeRow[]>`SELECT seq, record, change_set, committed_at_ms
    FROM vane_changes WHERE seq > ${seq} ORDER BY seq`;
}

/**
 * The changes committed after sequence number `seq`, in order, with the
 * database's clock when it read them (in ms since the epoch): one row with
 * `seq` null when there is no change.
 */
export function changesAfterWithClock(
  sql: PostgresSql,
  seq: number,
): CancellableQuery<Array<{ [K in keyof ChangeRow]: ChangeRow[K] | null } & { server_ms: number }>> {
  return sql<Array<{ [K in keyof ChangeRow]: ChangeRow[K] | null } & { server_ms: number }>>`
    SELECT c.seq, c.record, c.change_set, c.committed_at_ms,
      (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS server_ms
    FROM (SELECT 1) AS one LEFT JOIN vane_changes c ON c.seq > ${seq} ORDER BY c.seq`;
}

/** A change set as the table keeps it. */
export function storedChangeSet(changes: ChangeSet): StoredChangeSet {
  return {
    service: changes.service,
    configs: [...changes.configs],
    flags: [...changes.flags],
    secrets: [...changes.secrets],
  };
}

/** A change set as the store takes it. */
export function loadedChangeSet(stored: StoredChangeSet): ChangeSet {
  return {
    service: stored.service,
    configs: new Set(stored.configs),
    flags: new Set(stored.flags),
    secrets: new Set(stored.secrets),
  };
}

/** The row that holds `recorded` at sequence number `seq`. */
export function storedRow(seq: number, recorded: RecordedChange): Record<string, string | number | null> {
  const record = JSON.stringify(recorded.change);
  const changeSet = recorded.changeSet === null ? null : JSON.stringify(recorded.changeSet);
  const change = recorded.change;
  return {
    seq,
    slug: 'slug' in change ? change.slug : null,
    revision: 'revision' in change && recorded.changeSet !== null ? change.revision : null,
    record,
    change_set: changeSet,
    committed_at_ms: recorded.committedAtMs,
    bytes: Buffer.byteLength(record) + (changeSet === null ? 0 : Buffer.byteLength(changeSet)),
  };
}
