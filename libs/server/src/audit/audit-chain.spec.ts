import { chainAuditEntry, GENESIS_HASH, verifyAuditChain } from './audit-chain.js';
import type { AuditRecord } from '../domain/model.js';

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
