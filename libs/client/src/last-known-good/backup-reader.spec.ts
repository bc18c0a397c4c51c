import { ManualTimers } from '../../test/helpers/manual-timers.js';
import { parseSnapshot } from '@vane/client-core';
import { encodeBackup, type BackupIdentity } from './backup-document.js';
import { deriveBackupKey } from './backup-key.js';
import { readBackup, type BackupReadContext } from './backup-reader.js';
import type { LastKnownGoodStore } from './last-known-good-store.js';
import { UnusableBackupError } from './unusable-backup-error.js';

const SERVICE = 'https://shop.vane.example';
const identity: BackupIdentity = {
  serviceId: SERVICE,
  key: deriveBackupKey('svs_reader_spec_key_0000000001', 'api-key', SERVICE),
};
const snapshot = parseSnapshot({ service: { slug: 'shop', kind: 'backend' }, revision: 9, configs: { a: 1 } });

function storeOf(read: () => Promise<string | null>): LastKnownGoodStore {
  return { describe: () => 'spec store', read, write: () => Promise.resolve() };
}

function context(store: LastKnownGoodStore, timers: ManualTimers, maxAgeMs?: number): BackupReadContext {
  return { store, identity, maxAgeMs, timeoutMs: 2000, clock: timers, timers };
}

describe('readBackup', () => {
  it('returns the backup with its age, or null when the store has none', async () => {
    const timers = new ManualTimers();
    const text = encodeBackup(snapshot, timers.now() - 90_000, identity);
    const backup = await readBackup(
      context(
        storeOf(() => Promise.resolve(text)),
        timers,
        120_000,
      ),
    );
    expect(backup?.snapshot.revision).toBe(9);
    expect(backup?.ageMs).toBe(90_000);
    expect(
      await readBackup(
        context(
          storeOf(() => Promise.resolve(null)),
          timers,
        ),
      ),
    ).toBeNull();
    expect(timers.pendingCount).toBe(0);
  });

  it('refuses a backup older than maxAgeMs', async () => {
    const timers = new ManualTimers();
    const text = encodeBackup(snapshot, timers.now() - 120_001, identity);
    await expect(
      readBackup(
        context(
          storeOf(() => Promise.resolve(text)),
          timers,
          120_000,
        ),
      ),
    ).rejects.toThrow(/expired: revision 9 was saved 120001 ms ago, more than maxAgeMs \(120000 ms\)/);
  });

  it('a writer clock ahead of ours counts as age 0', async () => {
    const timers = new ManualTimers();
    const text = encodeBackup(snapshot, timers.now() + 5_000, identity);
    expect(
      (
        await readBackup(
          context(
            storeOf(() => Promise.resolve(text)),
            timers,
            1,
          ),
        )
      )?.ageMs,
    ).toBe(0);
  });

  it('a store that fails is an unusable backup, its message redacted', async () => {
    const timers = new ManualTimers();
    const failing = storeOf(() =>
      Promise.reject(new Error('ECONNREFUSED while sending svs_leaked_key_in_message_0001')),
    );
    const err = await readBackup(context(failing, timers)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnusableBackupError);
    expect((err as Error).message).toMatch(/the store cannot be read \(Error: ECONNREFUSED/);
    expect((err as Error).message).not.toContain('svs_leaked_key_in_message_0001');
  });

  it('a store that never answers times out after timeoutMs', async () => {
    const timers = new ManualTimers();
    const pending = readBackup(
      context(
        storeOf(() => new Promise<string | null>(() => undefined)),
        timers,
      ),
    ).catch((e: unknown) => e);
    await timers.advance(2000);
    expect(String(await pending)).toMatch(/did not answer within 2000 ms/);
    expect(timers.pendingCount).toBe(0);
  });
});
