import { MemoryLogger } from '../../test/helpers/fake-transport.js';
import { ManualTimers } from '../../test/helpers/manual-timers.js';
import {
  BillingOverdueError,
  VaneNotFoundError,
  QuarantinedError,
  RateLimitedError,
  TransportError,
  UnauthorizedError,
  UnexpectedResponseError,
  type VaneError,
} from '../errors.js';
import { parseSnapshot } from '@vane/client-core';
import { encodeBackup } from './backup-document.js';
import type { LastKnownGoodStore } from './last-known-good-store.js';
import { resolveLastKnownGood } from './last-known-good-options.js';
import { formatAge, staleStartMessage, startFromServiceOrBackup, type StaleStartContext } from './stale-start.js';

const API_KEY = 'svs_stale_start_spec_key_0000001';
const BASE = new URL('http://shop.localhost:4400');

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

function setup(options: { maxAgeMs?: number } = {}) {
  const timers = new ManualTimers();
  const logger = new MemoryLogger();
  const store = new MemoryStore();
  const lastKnownGood = resolveLastKnownGood({ store, initTimeoutMs: 5000, ...options }, BASE, API_KEY)!;
  const ctx: StaleStartContext = { lastKnownGood, readTimeoutMs: 1000, clock: timers, timers, logger };
  const snapshot = parseSnapshot({ service: { slug: 'shop', kind: 'backend' }, revision: 12, configs: { a: 1 } });
  const save = (agoMs = 60_000): void => {
    store.text = encodeBackup(snapshot, timers.now() - agoMs, lastKnownGood.identity);
  };
  return { timers, logger, store, ctx, save };
}

describe('startFromServiceOrBackup', () => {
  it('a sync that succeeds in time is a fresh start; nothing is read, no timer left', async () => {
    const { ctx, timers, logger } = setup();
    await expect(startFromServiceOrBackup(Promise.resolve(), ctx)).resolves.toBeUndefined();
    expect(timers.pendingCount).toBe(0);
    expect(logger.lines).toEqual([]);
  });

  it.each<[string, VaneError, string]>([
    ['connection refused', new TransportError('sync: cannot reach shop.localhost (ECONNREFUSED)'), 'transport'],
    ['a 503', new UnexpectedResponseError('sync: unexpected answer 503', 503), 'server-error'],
    ['a 429', new RateLimitedError('sync: rate limited (429)'), 'rate-limited'],
    ['a quarantine', new QuarantinedError('sync: quarantined (429)'), 'quarantined'],
    ['a 402', new BillingOverdueError('sync: billing overdue (402)'), 'billing-overdue'],
  ])('%s serves the backup', async (_name, error, reason) => {
    const { ctx, save, logger } = setup();
    save(90_000);
    const stale = await startFromServiceOrBackup(Promise.reject(error), ctx);
    expect(stale).toMatchObject({ reason, error, pending: undefined });
    expect(stale!.backup.snapshot.revision).toBe(12);
    expect(stale!.backup.ageMs).toBe(90_000);
    expect(logger.lines).toEqual([]);
    expect(staleStartMessage(stale!, 'memory store')).toMatch(
      /^starting STALE from the last-known-good backup in memory store \(revision 12, saved 90 s ago\): sync: .*; (retrying the service in the background|background sync halted \(billing\) until a sync\(\) succeeds)$/,
    );
  });

  it.each<[string, VaneError]>([
    ['401', new UnauthorizedError('sync: unauthorized (401)')],
    ['404', new VaneNotFoundError('sync: not found (404)')],
  ])('%s fails the start even with a backup, without reading it', async (_name, error) => {
    const { ctx, save, store } = setup();
    save();
    const read = jest.spyOn(store, 'read');
    await expect(startFromServiceOrBackup(Promise.reject(error), ctx)).rejects.toBe(error);
    expect(read).not.toHaveBeenCalled();
  });

  it('no backup: the original error, and a warning saying there is none', async () => {
    const { ctx, logger } = setup();
    const error = new TransportError('sync: cannot reach');
    await expect(startFromServiceOrBackup(Promise.reject(error), ctx)).rejects.toBe(error);
    expect(logger.text('warn')).toMatch(
      /no backup in memory http:\/\/shop.localhost:4400; the start fails \(VANE_TRANSPORT\)/,
    );
  });

  it('a bad backup (tampered, expired): the original error, and a warning naming the store and why', async () => {
    const { ctx, logger, store, save } = setup({ maxAgeMs: 30_000 });
    const error = new TransportError('sync: cannot reach');
    save(60_000);
    await expect(startFromServiceOrBackup(Promise.reject(error), ctx)).rejects.toBe(error);
    expect(logger.text('warn')).toMatch(
      /ignoring the backup in memory http:\/\/shop.localhost:4400: expired: revision 12/,
    );
    save(1_000);
    store.text = store.text!.replace('"a":1', '"a":2');
    await expect(startFromServiceOrBackup(Promise.reject(error), ctx)).rejects.toBe(error);
    expect(logger.text('warn')).toMatch(/ignoring the backup in memory .*: authentication failed/);
  });

  it('a sync still running at initTimeoutMs: the backup, and the sync goes on as `pending`', async () => {
    const { ctx, save, timers } = setup();
    save();
    let finish!: () => void;
    const initial = new Promise<void>((resolve) => (finish = resolve));
    const started = startFromServiceOrBackup(initial, ctx);
    await timers.advance(4_999);
    await timers.advance(1);
    const stale = await started;
    expect(stale?.reason).toBe('timeout');
    expect(stale?.error).toMatchObject({ code: 'VANE_TRANSPORT', timedOut: true });
    expect(stale?.error.message).toMatch(/initTimeoutMs \(5000 ms\)/);
    expect(stale?.pending).toBe(initial);
    finish();
    await expect(stale!.pending).resolves.toBeUndefined();
    expect(timers.pendingCount).toBe(0);
  });

  it('a sync running past initTimeoutMs with no backup: waits for it, fresh if it succeeds, its error if it fails', async () => {
    const { ctx, timers } = setup();
    let finish!: () => void;
    const ok = startFromServiceOrBackup(new Promise<void>((resolve) => (finish = resolve)), ctx);
    await timers.advance(5_000);
    finish();
    await expect(ok).resolves.toBeUndefined();
    const error = new TransportError('sync: no answer', { timedOut: true });
    let fail!: (e: Error) => void;
    const failed = startFromServiceOrBackup(new Promise<void>((_, reject) => (fail = reject)), ctx);
    await timers.advance(5_000);
    fail(error);
    await expect(failed).rejects.toBe(error);
  });

  it('says ages in seconds, minutes or hours', () => {
    expect([formatAge(90_000), formatAge(600_000), formatAge(5 * 3600_000)]).toEqual(['90 s', '10 min', '5.0 h']);
  });
});
