import { MemoryLogger } from '../../test/helpers/fake-transport.js';
import { ManualTimers } from '../../test/helpers/manual-timers.js';
import { parseSnapshot, type Snapshot } from '@vane/client-core';
import { decodeBackup, type BackupIdentity } from './backup-document.js';
import { deriveBackupKey } from './backup-key.js';
import { BackupWriter } from './backup-writer.js';
import type { LastKnownGoodStore } from './last-known-good-store.js';
import { until } from '@vane/server/testing';

const SERVICE = 'https://shop.vane.example';
const identity: BackupIdentity = {
  serviceId: SERVICE,
  key: deriveBackupKey('svs_writer_spec_key_0000000001', 'api-key', SERVICE),
};

function snap(revision: number): Snapshot {
  return parseSnapshot({ service: { slug: 'shop', kind: 'backend' }, revision, configs: { n: revision } });
}

/** A store whose writes complete only when the test says so. */
class GatedStore implements LastKnownGoodStore {
  readonly written: string[] = [];
  readonly gates: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];
  describe(id: string): string {
    return `gated store ${id}`;
  }
  read(): Promise<string | null> {
    return Promise.resolve(this.written.at(-1) ?? null);
  }
  write(_id: string, document: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.gates.push({
        resolve: () => {
          this.written.push(document);
          resolve();
        },
        reject,
      });
    });
  }
  revisions(): number[] {
    return this.written.map((d) => decodeBackup(d, identity).snapshot.revision);
  }
}

function setup(refreshAfterMs?: number) {
  const timers = new ManualTimers();
  const logger = new MemoryLogger();
  const store = new GatedStore();
  const writer = new BackupWriter({
    store,
    identity,
    clock: timers,
    timers,
    logger,
    refreshAfterMs,
    closeTimeoutMs: 1000,
  });
  return { timers, logger, store, writer };
}

describe('BackupWriter', () => {
  it('saves off the caller’s path: nothing is written before the caller’s turn ends', async () => {
    const { store, writer } = setup();
    writer.offer(snap(1));
    expect(store.gates).toHaveLength(0);
    await until(() => store.gates.length === 1, '1 save started', { intervalMs: 0 });
    store.gates[0]!.resolve();
    await writer.flush();
    expect(store.revisions()).toEqual([1]);
    expect(writer.savedRevision).toBe(1);
  });

  it('coalesces a burst of patches into one write of the newest revision', async () => {
    const { store, writer } = setup();
    for (let r = 1; r <= 50; r++) writer.offer(snap(r));
    await until(() => store.gates.length === 1, '1 save started', { intervalMs: 0 });
    store.gates[0]!.resolve();
    await writer.flush();
    expect(store.revisions()).toEqual([50]);
  });

  it('while a write runs, keeps only the newest snapshot waiting, then writes it', async () => {
    const { store, writer } = setup();
    writer.offer(snap(1));
    await until(() => store.gates.length === 1, '1 save started', { intervalMs: 0 });
    writer.offer(snap(2));
    writer.offer(snap(3));
    writer.offer(snap(2)); // older than the one waiting: ignored
    store.gates[0]!.resolve();
    await until(() => store.gates.length === 2, '2 saves started', { intervalMs: 0 });
    store.gates[1]!.resolve();
    await writer.flush();
    expect(store.revisions()).toEqual([1, 3]);
  });

  it('never writes a revision twice (a 304 offers the same snapshot again)', async () => {
    const { store, writer } = setup();
    writer.offer(snap(7));
    await until(() => store.gates.length === 1, '1 save started', { intervalMs: 0 });
    store.gates[0]!.resolve();
    await writer.flush();
    for (let i = 0; i < 5; i++) writer.offer(snap(7));
    writer.offer(snap(6));
    await writer.flush();
    expect(store.gates).toHaveLength(1);
    expect(writer.writes).toBe(1);
  });

  it('with refreshAfterMs, rewrites an unchanged revision once its copy is that old', async () => {
    const { store, writer, timers } = setup(60_000);
    writer.offer(snap(7));
    await until(() => store.gates.length === 1, '1 save started', { intervalMs: 0 });
    store.gates[0]!.resolve();
    await writer.flush();
    await timers.advance(59_999);
    writer.offer(snap(7));
    await writer.flush();
    expect(store.gates).toHaveLength(1);
    await timers.advance(1);
    writer.offer(snap(7));
    await until(() => store.gates.length === 2, '2 saves started', { intervalMs: 0 });
    store.gates[1]!.resolve();
    await writer.flush();
    expect(store.revisions()).toEqual([7, 7]);
  });

  it('a failed write is logged once per streak, naming the store, and retried with the next offer', async () => {
    const { store, writer, logger } = setup();
    writer.offer(snap(1));
    await until(() => store.gates.length === 1, '1 save started', { intervalMs: 0 });
    store.gates[0]!.reject(new Error('READONLY You can’t write against a read only replica'));
    await writer.flush();
    writer.offer(snap(1));
    await until(() => store.gates.length === 2, '2 saves started', { intervalMs: 0 });
    store.gates[1]!.reject(new Error('still read only'));
    await writer.flush();
    expect(logger.text('warn').split('\n')).toHaveLength(1);
    expect(logger.text('warn')).toMatch(
      /cannot save revision 1 to gated store https:\/\/shop.vane.example \(Error: READONLY/,
    );
    writer.offer(snap(1));
    await until(() => store.gates.length === 3, '3 saves started', { intervalMs: 0 });
    store.gates[2]!.resolve();
    await writer.flush();
    expect(store.revisions()).toEqual([1]);
    expect(logger.text('info')).toMatch(/works again/);
  });

  it('close() waits for the write in progress and the one waiting, then takes no more', async () => {
    const { store, writer } = setup();
    writer.offer(snap(1));
    await until(() => store.gates.length === 1, '1 save started', { intervalMs: 0 });
    writer.offer(snap(2));
    const closed = writer.close();
    store.gates[0]!.resolve();
    await until(() => store.gates.length === 2, '2 saves started', { intervalMs: 0 });
    store.gates[1]!.resolve();
    await closed;
    writer.offer(snap(3));
    await writer.flush();
    expect(store.revisions()).toEqual([1, 2]);
  });

  it('close() gives up on a store that hangs after closeTimeoutMs, with a warning, and leaves no timer', async () => {
    const { store, writer, timers, logger } = setup();
    writer.offer(snap(1));
    await until(() => store.gates.length === 1, '1 save started', { intervalMs: 0 });
    const closed = writer.close();
    await timers.advance(1000);
    await closed;
    expect(logger.text('warn')).toMatch(/did not finish within 1000 ms/);
    expect(timers.pendingCount).toBe(0);
  });
});
