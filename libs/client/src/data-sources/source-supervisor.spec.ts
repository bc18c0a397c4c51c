import { flush } from '../../test/helpers/manual-timers.js';
import { RecordingSource, SourceParts, syncAnswer } from '../../test/helpers/source-parts.js';
import type { FakeResponse } from '../../test/helpers/fake-transport.js';
import {
  BillingOverdueError,
  QuarantinedError,
  RateLimitedError,
  TransportError,
  UnauthorizedError,
} from '../errors.js';
import { ClientStatus, type VaneClientStatus } from './client-status.js';
import { SourceSupervisor } from './source-supervisor.js';

/** A supervisor over recording sources and a real snapshot sync (fake transport, hand-driven timers). */
async function supervised(options: { stream?: boolean; answers?: FakeResponse[] } = {}) {
  const answers = options.answers ?? [];
  const parts = new SourceParts(() => answers.shift() ?? syncAnswer(1), {
    streamErrorThreshold: 3,
    streamCooldownMs: 60_000,
    ttlMs: 30_000,
    maxRetryAfterMs: 120_000,
  });
  await parts.sync.initial();
  const status = new ClientStatus(parts.logger);
  const statuses: VaneClientStatus[] = [];
  status.listeners.add((s) => statuses.push(s), 'test');
  const supervisor = new SourceSupervisor(parts.options);
  parts.onEvent = (event) => supervisor.report(event);
  const polling = new RecordingSource();
  const streaming = options.stream === false ? undefined : new RecordingSource();
  supervisor.start({ status, store: parts.store, sync: parts.sync, polling, streaming });
  return { parts, status, statuses, supervisor, polling, streaming: streaming!, report: parts.report };
}

const down = () => new TransportError('stream: connection reset');

describe('SourceSupervisor', () => {
  let parts: SourceParts;
  afterEach(() => parts.close());

  it('ignores what the initial sync reports before start(), then starts the poll at the TTL and the stream at once', async () => {
    const s = await supervised();
    parts = s.parts;
    expect(s.parts.events.map((e) => e.type)).toEqual(['synced']); // the initial sync's, before start()
    expect(s.polling.scheduled).toEqual([30_000]);
    expect(s.streaming.scheduled).toEqual([0]);
    expect(s.status.current.mode).toBe('polling');
  });

  it('stream-opened: connected, logged once; a synced event restarts the TTL', async () => {
    const s = await supervised();
    parts = s.parts;
    s.report({ type: 'stream-opened' });
    s.report({ type: 'stream-opened' });
    expect(s.status.current).toMatchObject({ mode: 'stream', connected: true });
    expect(s.parts.logger.lines.filter((l) => l.message.startsWith('stream: connected to'))).toHaveLength(1);
    s.report({ type: 'synced' });
    expect(s.polling.scheduled).toEqual([30_000, 30_000]);
  });

  it('goaway reconnects after the delay asked for: connected stays true, no backoff, never the polling fallback', async () => {
    const s = await supervised();
    parts = s.parts;
    s.report({ type: 'stream-opened' });
    const fail = () => s.report({ type: 'failed', kind: 'stream', error: down(), reason: 'stream' });
    fail();
    fail(); // two of the three transport errors the fallback needs
    const before = s.statuses.length;
    for (let i = 0; i < 10; i++) {
      s.report({ type: 'stream-opened' });
      s.report({ type: 'goaway', delayMs: 2500 });
      expect(s.streaming.last).toBe(2500);
      expect(s.status.current).toMatchObject({ mode: 'stream', connected: true });
    }
    expect(s.statuses.slice(before).every((st) => st.connected)).toBe(true);
    // The count is where the transport errors left it (goaway added nothing): the third error falls back.
    fail();
    await flush();
    expect(s.status.current).toMatchObject({ mode: 'polling', connected: false });
    expect(s.parts.logger.text('info')).toContain('stream: the service asked for a new stream in 2500 ms (goaway)');
  });

  it('goaway after a healthy stream: the next transport error is the first, backing off from the minimum', async () => {
    const s = await supervised();
    parts = s.parts;
    for (let i = 0; i < 5; i++) {
      s.report({ type: 'stream-opened' });
      s.report({ type: 'goaway', delayMs: 0 });
    }
    s.report({ type: 'failed', kind: 'stream', error: down(), reason: 'stream' });
    expect(s.streaming.last).toBe(1000);
    expect(s.parts.logger.text('warn')).toContain('(stream error 1 of 3)');
    expect(s.status.current.connected).toBe(true);
  });

  it('stream failures back off; at the threshold the client falls back to polling, syncs once and cools down', async () => {
    const s = await supervised();
    parts = s.parts;
    s.report({ type: 'stream-opened' });
    const fail = () => s.report({ type: 'failed', kind: 'stream', error: down(), reason: 'stream' });
    fail();
    fail();
    expect(s.streaming.scheduled.slice(1)).toEqual([1000, 2000]);
    expect(s.status.current.connected).toBe(true); // below the threshold, still counted as connected
    const syncs = s.parts.transport.to('/v1/sync').length;
    fail();
    await flush();
    expect(s.status.current).toMatchObject({ mode: 'polling', connected: false });
    expect(s.streaming.last).toBe(60_000);
    expect(s.parts.transport.to('/v1/sync')).toHaveLength(syncs + 1);
    expect(s.parts.logger.text('warn')).toContain('(3 consecutive stream errors): polling now, then every 30000 ms');
    // Further failures while cooling down: quiet, the cooldown again.
    fail();
    expect(s.streaming.last).toBe(60_000);
    expect(s.parts.logger.text('warn').match(/consecutive stream errors/g)).toHaveLength(1);
  });

  it('a failed background sync logs and polls again at the TTL; a 401 is an error line', async () => {
    const s = await supervised();
    parts = s.parts;
    s.report({ type: 'failed', kind: 'sync', error: down(), reason: 'ttl' });
    expect(s.polling.last).toBe(30_000);
    expect(s.parts.logger.text('warn')).toContain('background sync (ttl) failed, serving revision 1');
    s.report({ type: 'failed', kind: 'sync', error: new UnauthorizedError('sync: unauthorized'), reason: 'ttl' });
    expect(s.parts.logger.text('error')).toContain('background sync (ttl): sync: unauthorized');
  });

  it('a 429 makes both sources wait as long as asked, capped by maxRetryAfterMs; a success lifts the wait', async () => {
    const s = await supervised();
    parts = s.parts;
    const t0 = s.parts.timers.now();
    s.report({
      type: 'failed',
      kind: 'sync',
      error: new RateLimitedError('sync: rate limited', { retryAfterMs: 90_000 }),
      reason: 'ttl',
    });
    expect(s.status.current).toMatchObject({ mode: 'rate-limited', retryAt: new Date(t0 + 90_000) });
    expect(s.polling.last).toBe(90_000);
    s.report({
      type: 'failed',
      kind: 'stream',
      error: new QuarantinedError('stream: quarantined', { retryAfterMs: 3_600_000 }),
      reason: 'stream',
    });
    expect(s.status.current).toMatchObject({ mode: 'quarantined', retryAt: new Date(t0 + 120_000) });
    expect(s.streaming.last).toBe(120_000);
    expect(s.polling.last).toBe(120_000);
    s.report({ type: 'synced' });
    expect(s.status.current.mode).toBe('polling');
  });

  it('a 402 from a source or a foreground call halts both sources; the next success resumes them', async () => {
    const s = await supervised();
    parts = s.parts;
    s.report({ type: 'foreground-failed', error: down() });
    expect(s.status.current.mode).toBe('polling'); // only a 402 changes anything
    s.report({ type: 'failed', kind: 'sync', error: new BillingOverdueError('sync: billing overdue'), reason: 'ttl' });
    expect(s.status.current).toMatchObject({ mode: 'halted', billingOverdue: true });
    expect([s.polling.stops, s.streaming.stops]).toEqual([1, 1]);
    // While halted: no background sync, failures are not logged again.
    s.report({ type: 'sync-requested', reason: 'malformed patch' });
    s.report({ type: 'foreground-failed', error: new BillingOverdueError('sync: billing overdue') });
    await flush();
    expect(s.parts.transport.to('/v1/sync')).toHaveLength(1);
    expect(s.parts.logger.text('error').match(/halted/g)).toHaveLength(1);
    s.report({ type: 'synced' });
    expect(s.status.current).toMatchObject({ mode: 'polling', billingOverdue: false });
    expect(s.streaming.last).toBe(0);
    expect(s.polling.last).toBe(30_000);
    expect(s.statuses.map((st) => st.mode)).toEqual(['halted', 'polling']);
  });

  it('sync-requested runs a background sync; its failure is handled as a failed sync', async () => {
    const s = await supervised({ answers: [syncAnswer(1), { status: 500, body: '{}' }] });
    parts = s.parts;
    s.report({ type: 'sync-requested', reason: 'malformed patch' });
    await flush();
    expect(s.parts.transport.to('/v1/sync')).toHaveLength(2);
    expect(s.polling.scheduled).toEqual([30_000, 30_000]);
    expect(s.parts.logger.text('warn')).toContain('background sync (malformed patch) failed');
  });

  it('after close() every event is ignored and both sources are stopped', async () => {
    const s = await supervised();
    parts = s.parts;
    await s.supervisor.close();
    expect([s.polling.stops, s.streaming.stops]).toEqual([1, 1]);
    s.report({ type: 'stream-opened' });
    s.report({ type: 'failed', kind: 'stream', error: down(), reason: 'stream' });
    expect(s.status.current.connected).toBe(false);
    expect(s.streaming.scheduled).toEqual([0]);
  });

  it('a defect while handling an event is logged, never thrown into the app', async () => {
    const s = await supervised({ stream: false });
    parts = s.parts;
    s.polling.schedule = () => {
      throw new TypeError('boom');
    };
    expect(() => s.report({ type: 'failed', kind: 'sync', error: down(), reason: 'ttl' })).not.toThrow();
    expect(s.parts.logger.text('error')).toContain('background failed event could not be handled: TypeError');
  });
});
