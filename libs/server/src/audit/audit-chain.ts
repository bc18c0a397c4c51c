/**
 * The audit's hash chain: each entry's hash covers its members and the hash
 * of the entry before, so an entry edited, removed or moved breaks the chain
 * at that entry.
 */
import { hash } from 'node:crypto';
import type { AuditRecord, JsonValue } from '../domain/model.js';

/** The `prev` of the first entry. */
export const GENESIS_HASH = '0'.repeat(64);

/** An entry before it is chained: everything but `seq`, `prev` and `hash`. */
export type AuditFields = Omit<AuditRecord, 'seq' | 'prev' | 'hash'>;

/** Where a chain breaks, as {@link verifyAuditChain} finds it. */
export interface AuditChainBreak {
  /** Position of the first bad entry in the list checked (0-based). */
  readonly index: number;
  /** The `seq` that entry claims. */
  readonly seq: number;
  /** What is wrong, in words. */
  readonly problem: string;
}

/** The entry that follows `last` (or starts the chain): numbered, linked and hashed. */
export function chainAuditEntry(last: AuditRecord | undefined, fields: AuditFields): AuditRecord {
  const unhashed = {
    seq: (last?.seq ?? 0) + 1,
    at: fields.at,
    actor: fields.actor,
    action: fields.action,
    service: fields.service,
    key: fields.key,
    revision: fields.revision,
    ...(fields.version === undefined ? {} : { version: fields.version }),
    ...(fields.old === undefined ? {} : { old: fields.old }),
    ...(fields.new === undefined ? {} : { new: fields.new }),
    prev: last?.hash ?? GENESIS_HASH,
  };
  return { ...unhashed, hash: auditHash(unhashed) };
}

/**
 * SHA-256 of an entry's members other than `hash`, in a fixed order, so the
 * hash does not depend on how a store orders JSON members.
 */
export function auditHash(entry: Omit<AuditRecord, 'hash'>): string {
  const members: JsonValue[] = [
    entry.seq,
    entry.at,
    entry.actor,
    entry.action,
    entry.service,
    entry.key,
    entry.revision,
    entry.version === undefined ? '-' : entry.version,
    entry.old === undefined ? '-' : [entry.old],
    entry.new === undefined ? '-' : [entry.new],
    entry.prev,
  ];
  // One-shot: the same digest as a Hash object, without making one for every change.
  return hash('sha256', JSON.stringify(members), 'hex');
}

/**
 * Checks a whole chain, oldest first.
 *
 * @returns the first entry edited (its hash no longer matches), removed (a
 *   `seq` skipped or `prev` not the hash before) or reordered; undefined
 *   when the chain holds.
 */
export function verifyAuditChain(entries: readonly AuditRecord[]): AuditChainBreak | undefined {
  let prev = GENESIS_HASH;
  let seq = 1;
  for (const [index, entry] of entries.entries()) {
    if (auditHash(entry) !== entry.hash) {
      return { index, seq: entry.seq, problem: 'edited: its hash does not match its contents' };
    }
    if (entry.seq !== seq) {
      return {
        index,
        seq: entry.seq,
        problem: `removed or reordered: expected entry ${seq} here, found entry ${entry.seq}`,
      };
    }
    if (entry.prev !== prev) {
      return { index, seq: entry.seq, problem: 'removed or reordered: it does not follow the entry before it' };
    }
    prev = entry.hash;
    seq++;
  }
  return undefined;
}
