import {
  auditChainKey,
  auditKeyLookup,
  chainAuditEntry,
  checkAuditHead,
  GENESIS_HASH,
  verifyAuditChain,
} from './audit-chain.js';
import type { AuditRecord } from './model.js';

function chain(length: number): AuditRecord[] {
  const entries: AuditRecord[] = [];
  for (let n = 1; n <= length; n++) {
    entries.push(
      chainAuditEntry(entries[n - 2], {
        at: `2026-11-22T10:00:0${n}Z`,
        actor: 'admin',
        action: 'config.set',
        service: 'shop',
        key: 'a',
        revision: n + 1,
        old: n - 1,
        new: n,
      }),
    );
  }
  return entries;
}

describe('the audit hash chain', () => {
  it('numbers and links entries from the genesis hash', () => {
    const entries = chain(3);
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(entries[0]!.prev).toBe(GENESIS_HASH);
    expect(entries[2]!.prev).toBe(entries[1]!.hash);
    expect(verifyAuditChain(entries)).toBeUndefined();
  });

  it('finds an edited entry', () => {
    const entries = chain(5);
    entries[2] = { ...entries[2]!, new: 99 };
    expect(verifyAuditChain(entries)).toMatchObject({ index: 2, seq: 3, problem: expect.stringContaining('edited') });
  });

  it('finds a removed entry, first or in the middle', () => {
    expect(verifyAuditChain(chain(5).filter((e) => e.seq !== 3))).toMatchObject({ index: 2, seq: 4 });
    expect(verifyAuditChain(chain(5).slice(1))).toMatchObject({ index: 0, seq: 2 });
  });

  it('finds reordered entries', () => {
    const entries = chain(5);
    [entries[1], entries[3]] = [entries[3]!, entries[1]!];
    expect(verifyAuditChain(entries)).toMatchObject({ index: 1, seq: 4 });
  });

  it('finds an entry rehashed after an edit: the next one no longer follows it', () => {
    const entries = chain(4);
    const edited = chainAuditEntry(entries[0], { ...entries[1]!, actor: 'someone-else' });
    entries[1] = edited;
    expect(verifyAuditChain(entries)).toMatchObject({ index: 2, seq: 3 });
  });
});

describe('the keyed audit chain', () => {
  const rootKey = { id: 'rk_0123456789abcdef', key: Buffer.alloc(32, 3) };
  const fields = {
    at: '2026-11-22T10:00:00.000Z',
    actor: 'admin',
    action: 'config.set' as const,
    service: 'shop',
    key: 'a',
    revision: 2,
  };

  it('hashes with an HMAC under the audit key of the root key it names, and verifies only with that key', () => {
    const key = auditChainKey(rootKey);
    const first = chainAuditEntry(undefined, fields, key);
    const second = chainAuditEntry(first, { ...fields, revision: 3 }, key);
    expect(first.keyed_by).toBe(key.id);
    expect(key.id).toMatch(/^ak_[0-9a-f]{16}$/);
    expect(first.hash).not.toBe(chainAuditEntry(undefined, fields).hash);
    const keyFor = auditKeyLookup([rootKey]);
    expect(verifyAuditChain([first, second], keyFor)).toBeUndefined();
    expect(verifyAuditChain([first, second])).toMatchObject({ seq: 1, problem: expect.stringContaining('not given') });
    const otherKey = auditChainKey({ key: Buffer.alloc(32, 4) }).key;
    expect(verifyAuditChain([first, second], () => otherKey)).toMatchObject({
      seq: 1,
      problem: expect.stringContaining('edited'),
    });
  });

  it('continues an unkeyed chain with keyed entries: both verify in one pass', () => {
    const key = auditChainKey(rootKey);
    const old = chainAuditEntry(undefined, fields);
    const next = chainAuditEntry(old, { ...fields, revision: 3 }, key);
    expect(verifyAuditChain([old, next], () => key.key)).toBeUndefined();
    expect(checkAuditHead([old, next], next.hash)).toBeUndefined();
    expect(checkAuditHead([old], next.hash)).toMatch(/tail was cut/);
  });
});
