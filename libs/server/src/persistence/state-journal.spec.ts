import { appendFileSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JournalFileError } from './journal-file.js';
import { chainAuditEntry } from '../domain/audit-chain.js';
import { DEFAULT_TENANT, emptyAccessState, type AuditRecord, type ServerData } from '../domain/model.js';
import { applyStateChange, type StateChange } from '../domain/state-change.js';
import { journalPathOf, StateJournal, type StateJournalOptions } from './state-journal.js';
import { Keyring } from '../sealing/keyring.js';
import { hashApiKey } from '../domain/api-key-hash.js';
import { SealingCodec } from '../sealing/sealing-codec.js';

function emptyData(): ServerData {
  return {
    tenant: { ...DEFAULT_TENANT },
    services: new Map(),
    audit: [],
    projects: new Map([['default', { created_at: null }]]),
    tokens: new Map(),
    access: emptyAccessState(),
  };
}

function options(extra: Partial<StateJournalOptions> = {}): StateJournalOptions {
  return { initial: emptyData, codec, onError: (error) => errors.push(error), ...extra };
}

const errors: Error[] = [];
/** One keyring for every journal of the file, as one server keeps its key across restarts. */
const codec = new SealingCodec(new Keyring([Keyring.generate().key]));

/** Changes the data as the store would, and records the change. */
function change(journal: StateJournal, data: ServerData, record: StateChange): void {
  applyStateChange(data, record);
  journal.record(record);
}

const trail: AuditRecord[] = [];
for (let n = 1; n <= 10; n++) {
  trail.push(
    chainAuditEntry(trail[n - 2], {
      at: '2026-11-23T10:00:00Z',
      action: 'secret.set',
      service: 'shop',
      key: 'api',
      revision: n,
      version: n,
      actor: 'admin',
    }),
  );
}
/** The `n`th entry of one audit chain, as the store puts it in a change. */
const audit = (n: number) => ({ audit: trail[n - 1]! });

describe('StateJournal', () => {
  let dir: string;
  let statePath: string;
  const open_: StateJournal[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vane-journal-'));
    statePath = join(dir, 'state.json');
    errors.length = 0;
  });
  afterEach(async () => {
    for (const journal of open_.splice(0)) await journal.close();
    jest.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Closes `journal` but leaves its files as a kill -9 would have (close folds the journal into the state file). */
  async function crash(journal: StateJournal): Promise<void> {
    await journal.whenDurable();
    const files = [statePath, journalPathOf(statePath)].filter((file) => existsSync(file));
    for (const file of files) copyFileSync(file, `${file}.crash`);
    await journal.close();
    open_.length = 0;
    for (const file of files) copyFileSync(`${file}.crash`, file);
  }

  async function openJournal(extra: Partial<StateJournalOptions> = {}) {
    const opened = await StateJournal.open(statePath, options(extra));
    open_.push(opened.journal);
    return opened;
  }

  it('starts from `initial` without a state file, writing it (0600) before anything else', async () => {
    const { data, recovery } = await openJournal({
      initial: () => ({
        tenant: { ...DEFAULT_TENANT },
        services: new Map(),
        audit: [],
        projects: new Map([['default', { created_at: null }]]),
        tokens: new Map(),
        access: emptyAccessState(),
      }),
    });
    expect(recovery).toEqual({ restored: false, replayed: 0, droppedBytes: 0, removedLeftovers: [] });
    expect(data.services.size).toBe(0);
    expect(statSync(statePath).mode & 0o777).toBe(0o600);
    expect(statSync(journalPathOf(statePath)).mode & 0o777).toBe(0o600);
  });

  it('makes every recorded change durable, and replays the journal on the next open', async () => {
    const { journal, data } = await openJournal();
    change(journal, data, { type: 'service', slug: 'shop', kind: 'backend', revision: 1 });
    change(journal, data, { type: 'config', slug: 'shop', key: 'db.host', value: 'a', revision: 2 });
    change(journal, data, { type: 'config', slug: 'shop', key: '__proto__', value: ['x'], revision: 3 });
    await crash(journal);

    const reopened = await openJournal({ onRestore: (d) => d.services.forEach((s) => (s.revision += 1)) });
    expect(reopened.recovery.replayed).toBe(3);
    const shop = reopened.data.services.get('shop')!;
    expect([...shop.configs]).toEqual([
      ['db.host', 'a'],
      ['__proto__', ['x']],
    ]);
    expect(shop.revision).toBe(4);
    // The restored data (with the moved revision) is the new state file; the journal starts empty.
    expect(readFileSync(journalPathOf(statePath)).length).toBe(0);
    expect(JSON.parse(readFileSync(statePath, 'utf8')).services.shop.revision).toBe(4);
  });

  it('folds the journal into the state file on close, so the state file alone holds everything', async () => {
    const { journal, data } = await openJournal();
    change(journal, data, { type: 'service', slug: 'shop', kind: 'backend', revision: 1 });
    change(journal, data, { type: 'config', slug: 'shop', key: 'a', value: 1, revision: 2 });
    await journal.close();
    open_.length = 0;
    expect(readFileSync(journalPathOf(statePath)).length).toBe(0);
    expect(JSON.parse(readFileSync(statePath, 'utf8')).services.shop.configs).toEqual({ a: 1 });
  });

  it('writes changes recorded together with one fsync (group commit)', async () => {
    const { journal, data } = await openJournal();
    const probe = await open(join(dir, 'probe'), 'w');
    const datasync = jest.spyOn(Object.getPrototypeOf(probe) as { datasync(): Promise<void> }, 'datasync');
    await probe.close();
    change(journal, data, { type: 'service', slug: 'shop', kind: 'backend', revision: 1 });
    const waits: Array<Promise<void>> = [];
    for (let i = 2; i <= 51; i++) {
      change(journal, data, { type: 'config', slug: 'shop', key: `k${i}`, value: i, revision: i });
      waits.push(journal.whenDurable());
    }
    await Promise.all(waits);
    expect(datasync).toHaveBeenCalledTimes(1);
  });

  it('runs afterDurable actions in order, once their changes are durable', async () => {
    const { journal, data } = await openJournal();
    const seen: string[] = [];
    journal.afterDurable(() => seen.push('nothing pending: at once'));
    change(journal, data, { type: 'service', slug: 'shop', kind: 'backend', revision: 1 });
    journal.afterDurable(() => seen.push('first'));
    change(journal, data, { type: 'config', slug: 'shop', key: 'a', value: 1, revision: 2 });
    journal.afterDurable(() => seen.push('second'));
    expect(seen).toEqual(['nothing pending: at once']);
    await journal.whenDurable();
    expect(seen).toEqual(['nothing pending: at once', 'first', 'second']);
  });

  it('drops a torn last record (a crash mid-write) and keeps every whole one', async () => {
    const { journal, data } = await openJournal();
    change(journal, data, { type: 'service', slug: 'shop', kind: 'backend', revision: 1 });
    change(journal, data, { type: 'config', slug: 'shop', key: 'a', value: 1, revision: 2 });
    await crash(journal);
    const torn = '1234abcd {"type":"config","slug":"shop","key":"a","val';
    appendFileSync(journalPathOf(statePath), torn);

    const reopened = await openJournal();
    expect(reopened.recovery).toMatchObject({ restored: true, replayed: 2, droppedBytes: torn.length });
    expect(reopened.data.services.get('shop')!.configs.get('a')).toBe(1);
  });

  it('refuses a journal damaged before its last record, rather than skipping changes', async () => {
    const { journal, data } = await openJournal();
    change(journal, data, { type: 'service', slug: 'shop', kind: 'backend', revision: 1 });
    change(journal, data, { type: 'config', slug: 'shop', key: 'a', value: 1, revision: 2 });
    await crash(journal);
    const path = journalPathOf(statePath);
    const bytes = readFileSync(path);
    bytes[12] = bytes[12]! ^ 0x01; // inside the first record
    const handle = await open(path, 'w');
    await handle.write(bytes);
    await handle.close();

    await expect(StateJournal.open(statePath, options())).rejects.toThrow(JournalFileError);
    await expect(StateJournal.open(statePath, options())).rejects.toThrow(/byte 0 is damaged/);
  });

  it('refuses a journal whose state file is missing, rather than starting from the seed', async () => {
    const { journal, data } = await openJournal();
    change(journal, data, { type: 'service', slug: 'shop', kind: 'backend', revision: 1 });
    await crash(journal);
    rmSync(statePath);
    await expect(StateJournal.open(statePath, options())).rejects.toThrow(/a journal without its state file/);
  });

  it('compacts into the state file in the background and removes the journal it covers', async () => {
    const { journal, data } = await openJournal({ compactBytes: 2000 });
    change(journal, data, { type: 'service', slug: 'shop', kind: 'backend', revision: 1 });
    for (let i = 2; i < 200; i++) {
      change(journal, data, { type: 'config', slug: 'shop', key: `k${i % 7}`, value: 'v'.repeat(40) + i, revision: i });
      await journal.whenDurable();
    }
    await crash(journal);
    expect(existsSync(`${journalPathOf(statePath)}.old`)).toBe(false);
    // Well under what 198 records would take: the journal was cut at least once.
    expect(readFileSync(journalPathOf(statePath)).length).toBeLessThan(2000);

    const reopened = await openJournal();
    const shop = reopened.data.services.get('shop')!;
    expect(shop.revision).toBe(199);
    expect(shop.configs.get('k3')).toBe(`${'v'.repeat(40)}199`);
    expect(errors).toEqual([]);
  });

  it('replays a journal already folded into the state file without changing it (crash during compaction)', async () => {
    const { journal, data } = await openJournal();
    change(journal, data, { type: 'service', slug: 'shop', kind: 'backend', revision: 1 });
    const version = (n: number) => ({ version: n, value: `secret-${n}`, created_at: '2026-11-23T10:00:00Z' });
    for (const n of [1, 2, 3]) {
      change(journal, data, {
        type: 'secret.version',
        slug: 'shop',
        key: 'api',
        secret_type: 'text',
        version: version(n),
        next_version: n + 1,
        revision: n + 1,
        ...audit(n),
      });
    }
    change(journal, data, { type: 'key', slug: 'shop', key: 'svs_a', revoked: false });
    change(journal, data, { type: 'key', slug: 'shop', key: 'svs_a', revoked: true });
    change(journal, data, {
      type: 'secret.version.delete',
      slug: 'shop',
      key: 'api',
      version: 2,
      revision: 5,
      ...audit(4),
    });
    await crash(journal);
    copyFileSync(journalPathOf(statePath), join(dir, 'journal-copy'));
    await crash((await openJournal()).journal);
    const folded = readFileSync(statePath, 'utf8');
    // As if the process died after writing the state file and before removing the old journal.
    copyFileSync(join(dir, 'journal-copy'), `${journalPathOf(statePath)}.old`);

    const again = await openJournal();
    // Seven changes, and the data key the first secret version made.
    expect(again.recovery.replayed).toBe(8);
    expect(readFileSync(statePath, 'utf8')).toBe(folded);
    const shop = again.data.services.get('shop')!;
    expect(shop.secrets.get('api')!.versions.map((v) => v.version)).toEqual([1, 3]);
    expect(again.data.audit).toHaveLength(4);
    expect(again.data.audit.map((entry) => entry.version)).toEqual([1, 2, 3, 4]);
    expect([shop.keys, shop.revoked_keys.map((k) => k.hash)]).toEqual([[], [hashApiKey('svs_a')]]);
    expect(existsSync(`${journalPathOf(statePath)}.old`)).toBe(false);
  });
});
