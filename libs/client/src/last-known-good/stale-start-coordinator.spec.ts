import { until } from '@vane/server/testing';
import { flush } from '../../test/helpers/manual-timers.js';
import { SourceParts, syncAnswer } from '../../test/helpers/source-parts.js';
import { ClientStatus } from '../data-sources/client-status.js';
import { parseSnapshot } from '@vane/client-core';
import { encodeBackup } from './backup-document.js';
import type { LastKnownGoodStore } from './last-known-good-store.js';
import { StaleStartCoordinator } from './stale-start-coordinator.js';

class MemoryStore implements LastKnownGoodStore {
  text: string | null = null;
  describe(id: string): string {
    return `memory ${id}`;
  }
  read(): Promise<string | null> {
    return Promise.resolve(this.text);
  }
  write(_id: string, document: string): Promise<void> {
    this.text = document;
    return Promise.resolve();
  }
}

/** The coordinator over a real store and snapshot sync; `answer` decides what `/v1/sync` does. */
function setup() {
  const backups = new MemoryStore();
  const service: { answer: () => ReturnType<typeof syncAnswer> } = { answer: () => syncAnswer(20) };
  const parts = new SourceParts(() => service.answer(), {
    lastKnownGood: { store: backups, initTimeoutMs: 5_000 },
    backoffMinMs: 1_000,
    backoffMaxMs: 8_000,
  });
  const status = new ClientStatus(parts.logger);
  const halts: unknown[] = [];
  const coordinator = new StaleStartCoordinator(parts.options.lastKnownGood!, parts.options, {
    store: parts.store,
    status,
    sync: () => parts.sync.sync(),
    foregroundFailed: (error) => halts.push(error),
  });
  const saveBackup = (revision: number, agoMs = 60_000): void => {
    const snapshot = parseSnapshot({ service: { slug: 'shop', kind: 'backend' }, revision, configs: { a: 1 } });
    backups.text = encodeBackup(snapshot, parts.timers.now() - agoMs, parts.options.lastKnownGood!.identity);
  };
  return { parts, backups, service, status, halts, coordinator, saveBackup };
}

/** The initial sync, as the client starts it (its result is not the coordinator's business). */
const initial = (setup: { parts: SourceParts }): Promise<void> => setup.parts.sync.initial().then(() => undefined);

const refused = () => {
  throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:443'), { code: 'ECONNREFUSED' });
};

describe('StaleStartCoordinator', () => {
  let s: ReturnType<typeof setup>;
  afterEach(async () => {
    await s.coordinator.close();
    await s.parts.close();
  });

  it('a service that answers: a fresh start, and the applied snapshot is saved', async () => {
    s = setup();
    await expect(s.coordinator.start(initial(s))).resolves.toBe(false);
    s.coordinator.recover(); // nothing to recover from
    await until(() => s.backups.text !== null, 'the first save');
    expect((JSON.parse(s.backups.text!) as { snapshot: { revision: number } }).snapshot.revision).toBe(20);
    expect(s.status.current.stale).toBeUndefined();
    expect(s.parts.timers.pendingCount).toBe(0);
  });

  it('a service that is down and a usable backup: serves it, stale, retries with backoff until the service is back', async () => {
    s = setup();
    s.saveBackup(12);
    s.service.answer = refused;
    await expect(s.coordinator.start(initial(s))).resolves.toBe(true);
    expect(s.parts.store.snapshot.revision).toBe(12);
    expect(s.status.current.stale).toMatchObject({ reason: 'transport', revision: 12, secretsAvailable: true });
    expect(s.parts.logger.text('warn')).toContain('starting STALE from the last-known-good backup in memory');

    s.coordinator.recover();
    await s.parts.timers.advance(1_000); // first retry: still down
    expect(s.status.current.stale).toBeDefined();
    s.service.answer = () => syncAnswer(20);
    await s.parts.timers.advance(2_000); // second retry: back
    await flush();
    expect(s.parts.store.snapshot.revision).toBe(20);
    expect(s.status.current.stale).toBeUndefined();
    expect(s.parts.logger.text('info')).toContain('fresh again: revision 20 from the service replaces');
    expect(s.parts.timers.pendingCount).toBe(0);
  });

  it('a 402 at the start serves the backup and halts background work instead of retrying', async () => {
    s = setup();
    s.saveBackup(12);
    s.service.answer = () => ({
      status: 402,
      headers: { 'content-type': 'application/json' },
      body: '{"error":"billing_overdue"}',
    });
    await expect(s.coordinator.start(initial(s))).resolves.toBe(true);
    expect(s.status.current.stale?.reason).toBe('billing-overdue');
    s.coordinator.recover();
    expect(s.halts).toHaveLength(1);
    expect(s.halts[0]).toMatchObject({ code: 'VANE_BILLING_OVERDUE' });
    expect(s.parts.timers.pendingCount).toBe(0);
  });

  it('a service that is down and no backup: the start fails with the sync’s own error', async () => {
    s = setup();
    s.service.answer = refused;
    await expect(s.coordinator.start(initial(s))).rejects.toMatchObject({ code: 'VANE_TRANSPORT' });
    expect(s.parts.logger.text('warn')).toContain('last-known-good: no backup in memory');
  });
});
