import { startVaneServer, systemClock, type VaneServer } from '@vane/server';
import { VaneClient, type VaneClientOptions, type VaneClientStatus } from '../src/index.js';
import { MemoryLogger } from './helpers/fake-transport.js';
import { ManualTimers } from './helpers/manual-timers.js';
import { SHOP_SK, seed } from './helpers/seed.js';
import { until, waitForRevision, waitForStatus } from '@vane/server/testing';
import { FaultProxy, rawResponse } from '@vane/test-harness';

/**
 * The waits a 429 asks for (rate limit, quarantine), the honest status while
 * the client waits, and the other faults found by probing the client, against
 * the local server (sharing the client's hand-driven clock) behind a fault proxy.
 */
let server: VaneServer;
let proxy: FaultProxy;
let timers: ManualTimers;
let logger: MemoryLogger;
let client: VaneClient | undefined;

const isStream = (line: string): boolean => line.startsWith('GET /v1/stream ');
const isSync = (line: string): boolean => line.startsWith('GET /v1/sync ');

beforeEach(async () => {
  timers = new ManualTimers();
  server = await startVaneServer({
    seed: seed(),
    port: 0,
    clock: { now: () => timers.now(), setTimer: (cb, ms) => systemClock.setTimer(cb, ms) },
  });
  proxy = await FaultProxy.start(server.port);
  logger = new MemoryLogger();
  client = undefined;
});

afterEach(async () => {
  await client?.close();
  await proxy.close();
  await server.close();
  expect(logger.text()).not.toMatch(/svs_shop_e2e_secret_key_000001|TOPSECRET/);
});

async function start(options: Partial<VaneClientOptions> = {}): Promise<VaneClient> {
  client = await VaneClient.create({
    baseUrl: proxy.baseUrl('shop'),
    apiKey: SHOP_SK,
    logger,
    timers,
    clock: timers,
    random: () => 0,
    ...options,
  });
  return client;
}

describe('waits asked by the service', () => {
  it('a one-hour quarantine: the stream obeys it, capped by maxRetryAfterMs, and the status says so until it lifts', async () => {
    const vane = await start({ maxRetryAfterMs: 120_000 });
    await waitForStatus(vane, (s) => s.connected, { what: 'stream connected' });
    const seen: VaneClientStatus[] = [];
    vane.onStatusChange((s) => seen.push(s));
    const untilIso = new Date(timers.now() + 3_600_000).toISOString();
    // The server ends every stream of a quarantined tenant; the reconnect meets the 429.
    server.admin.setTenant({ quarantined_until: untilIso });
    await until(() => logger.text('warn').includes('stream error 1 of 3'), 'stream ended by the server');
    await timers.advance(1_000);
    await waitForStatus(vane, (s) => s.mode === 'quarantined', { what: 'quarantine reported' });
    expect(vane.connected).toBe(false);
    expect(vane.status.retryAt).toEqual(new Date(timers.now() + 120_000));
    expect(timers.pendingDelays()).toContain(120_000);
    const streamsDuringWait = proxy.count('/v1/stream');
    const syncsDuringWait = proxy.count('/v1/sync');
    await timers.advance(119_000);
    expect(proxy.count('/v1/stream')).toBe(streamsDuringWait);
    expect(proxy.count('/v1/sync')).toBe(syncsDuringWait);

    // The service is healthy again long before the hour is up: the client finds out at the cap.
    server.admin.setTenant({ quarantined_until: null });
    await timers.advance(1_000);
    await waitForStatus(vane, (s) => s.mode === 'stream', { what: 'back on the stream after the capped wait' });
    expect(vane.connected).toBe(true);
    expect(vane.status.retryAt).toBeUndefined();
    expect(seen.map((s) => s.mode)).toEqual(['quarantined', 'stream']);
  });

  it('a 429 with Retry-After: 86400 on sync: rate-limited until the cap, connected false, then polling again', async () => {
    const vane = await start({ stream: false, ttlMs: 60_000 });
    proxy.onRequest((line) =>
      isSync(line)
        ? rawResponse(429, '{"error":"rate_limited","message":"slow down"}', { 'retry-after': '86400' })
        : undefined,
    );
    await timers.advance(60_000);
    await waitForStatus(vane, (s) => s.mode === 'rate-limited', { what: 'rate limit reported' });
    expect(vane.status).toEqual({
      mode: 'rate-limited',
      connected: false,
      billingOverdue: false,
      retryAt: new Date(timers.now() + 300_000),
    });
    expect(timers.pendingDelays()).toEqual([300_000]);
    expect(logger.text('warn')).toContain('next try in 300000 ms');
    proxy.onRequest(undefined);
    const revision = server.admin.setConfig('shop', 'db.pool.max', 44);
    await timers.advance(300_000);
    await waitForRevision(vane, revision);
    // The update is emitted as the snapshot is installed; the sync's end (which lifts the wait) follows.
    await waitForStatus(vane, (s) => s.mode !== 'rate-limited', { what: 'the wait lifted by the sync' });
    expect(vane.status.mode).toBe('polling');
  });

  it('a stream answered 429 waits before reconnecting instead of counting toward the fallback', async () => {
    const vane = await start();
    await waitForStatus(vane, (s) => s.connected, { what: 'stream connected' });
    proxy.onRequest((line) =>
      isStream(line)
        ? rawResponse(429, '{"error":"rate_limited","message":"slow down"}', { 'retry-after': '30' })
        : undefined,
    );
    proxy.reset(isStream);
    await until(() => logger.text('warn').includes('stream error 1 of 3'), 'the reset');
    await timers.advance(1_000);
    await waitForStatus(vane, (s) => s.mode === 'rate-limited', { what: 'rate limit on the stream reported' });
    expect(vane.connected).toBe(false);
    expect(timers.pendingDelays()).toContain(30_000);
    proxy.onRequest(undefined);
    await timers.advance(30_000);
    await waitForStatus(vane, (s) => s.mode === 'stream', { what: 'reconnected after the wait' });
  });
});

describe('every failure is a VaneError with a code', () => {
  it('a snapshot with an array nested 20,000 deep rejects create() with VANE_UNEXPECTED_RESPONSE, not a RangeError', async () => {
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    proxy.onRequest((line) =>
      isSync(line)
        ? rawResponse(200, `{"service":{"slug":"shop","kind":"backend"},"revision":1,"configs":{"deep":${deep}}}`)
        : undefined,
    );
    const error = await start().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'VANE_UNEXPECTED_RESPONSE' });
    expect((error as Error).message).toContain('nested deeper than 100 levels');
  });

  it('a sync in flight when close() is called rejects with VANE_CLIENT_CLOSED', async () => {
    const vane = await start({ stream: false });
    proxy.stall(true);
    const pending = vane.sync().catch((e: unknown) => e);
    await until(() => proxy.count('/v1/sync') === 2, 'the sync is on the wire');
    await vane.close();
    await expect(pending).resolves.toMatchObject({ code: 'VANE_CLIENT_CLOSED' });
    proxy.stall(false);
  });
});
