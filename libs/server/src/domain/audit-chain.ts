/**
 * The audit's hash chain: each entry's hash covers its members and the hash
 * of the entry before, so an entry edited, removed or moved breaks the chain
 * at that entry. On a sealed store the chain is keyed: each hash is an HMAC
 * under a key derived from the root key (the entry's `keyed_by` names that
 * key by a fingerprint; verifying an entry takes the root key it came from),
 * so whoever can write the store but lacks the root key cannot rewrite the
 * chain and hash it again. Entries of an older, unkeyed chain (no
 * `keyed_by`) keep their SHA-256 and verify as they did.
 */
import { createHmac, hash, hkdfSync } from 'node:crypto';
import type { AuditRecord, JsonValue } from './model.js';

/** The key an audit entry is chained with, and the id an entry names it by. */
export interface AuditChainKey {
  /**
   * `ak_` and 16 hex digits of the key's SHA-256, written in the entry's
   * `keyed_by`: it names the key without naming the root key it comes from.
   */
  readonly id: string;
  /** HKDF-SHA256 of a root key, for the audit only. */
  readonly key: Buffer;
}

/** The audit chain's key derived from a root key: one purpose, so it is no key of anything else. */
export function auditChainKey(rootKey: { readonly key: Buffer }): AuditChainKey {
  const key = Buffer.from(hkdfSync('sha256', rootKey.key, 'vane audit chain', 'audit:hmac-sha256', 32));
  return { id: `ak_${hash('sha256', key, 'hex').slice(0, 16)}`, key };
}

/** The chain keys of `rootKeys`, by id: what a verifier holding those root keys can check. */
export function auditKeyLookup(rootKeys: ReadonlyArray<{ readonly key: Buffer }>): AuditKeyLookup {
  const keys = new Map(rootKeys.map((root) => auditChainKey(root)).map((k) => [k.id, k.key]));
  return (id) => keys.get(id);
}

/** Finds a chain key by its id (`ak_…`); undefined when the root key it comes from is not held. */
export type AuditKeyLookup = (keyId: string) => Buffer | undefined;

/** The `prev` of the first entry. */
export const GENESIS_HASH = '0'.repeat(64);

/** An entry before it is chained: everything but `seq`, `prev`, `hash` and `keyed_by`. */
export type AuditFields = Omit<AuditRecord, 'seq' | 'prev' | 'hash' | 'keyed_by'>;

/** Where a chain breaks, as {@link verifyAuditChain} finds it. */
export interface AuditChainBreak {
  /** Position of the first bad entry in the list checked (0-based). */
  readonly index: number;
  /** The `seq` that entry claims. */
  readonly seq: number;
  /** What is wrong, in words. */
  readonly problem: string;
}

/**
 * The entry that follows `last` (or starts the chain): numbered, linked and
 * hashed; keyed (an HMAC) when `key` is given.
 */
export function chainAuditEntry(last: AuditRecord | undefined, fields: AuditFields, key?: AuditChainKey): AuditRecord {
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
    ...(key === undefined ? {} : { keyed_by: key.id }),
  };
  return { ...unhashed, hash: auditHash(unhashed, key?.key) };
}

/**
 * SHA-256 of an entry's members other than `hash`, in a fixed order, so the
 * hash does not depend on how a store orders JSON members; HMAC-SHA256 under
 * `key` for a keyed entry (whose `keyed_by` is then hashed too).
 */
export function auditHash(entry: Omit<AuditRecord, 'hash'>, key?: Buffer): string {
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
  if (entry.keyed_by !== undefined) members.push(entry.keyed_by);
  if (key !== undefined) return createHmac('sha256', key).update(JSON.stringify(members)).digest('hex');
  // One-shot: the same digest as a Hash object, without making one for every change.
  return hash('sha256', JSON.stringify(members), 'hex');
}

/**
 * Checks a whole chain, oldest first.
 *
 * @param keyFor - the chain keys of the root keys held ({@link auditKeyLookup}); a keyed entry whose root key is
 *   not held breaks the check (its hash cannot be told from a forged one).
 * @returns the first entry edited (its hash no longer matches), removed (a
 *   `seq` skipped or `prev` not the hash before) or reordered; undefined
 *   when the chain holds.
 */
export function verifyAuditChain(
  entries: readonly AuditRecord[],
  keyFor: AuditKeyLookup = () => undefined,
): AuditChainBreak | undefined {
  let prev = GENESIS_HASH;
  let seq = 1;
  for (const [index, entry] of entries.entries()) {
    const key = entry.keyed_by === undefined ? undefined : keyFor(entry.keyed_by);
    if (entry.keyed_by !== undefined && key === undefined) {
      return {
        index,
        seq: entry.seq,
        problem: `keyed by audit key ${entry.keyed_by}, whose root key was not given: it cannot be verified`,
      };
    }
    if (auditHash(entry, key) !== entry.hash) {
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

/**
 * Checks a chain against a head kept outside the store (the `hash` of `GET
 * /admin/v1/audit/head`, noted earlier): the kept entry must still be in the
 * chain. A chain without it was cut back past it, or rewritten from before
 * it (a forged append hashes again whatever follows).
 *
 * @returns what is wrong, in words; undefined when the chain holds the head.
 */
export function checkAuditHead(entries: readonly AuditRecord[], headHash: string): string | undefined {
  if (entries.some((entry) => entry.hash === headHash)) return undefined;
  return (
    `the kept head ${headHash.slice(0, 12)}… is not in the chain (${entries.length} entries): ` +
    'its tail was cut, or it was rewritten from before the head (a forged append)'
  );
}

/** Whether `text` is an audit hash as the head gives it: 64 hex digits. */
export function isAuditHash(text: string): boolean {
  return /^[0-9a-f]{64}$/.test(text);
}
