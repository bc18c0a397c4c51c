import { startVaneServer, type VaneServer } from '@vane/server';
import { VaneClient, type ChangeEvent, type VaneClientOptions } from '../src/index.js';
import { MemoryLogger } from './helpers/fake-transport.js';
import { ManualTimers } from './helpers/manual-timers.js';
import { SHOP_SK, seed } from './helpers/seed.js';
import { until, waitForRevision, waitForStatus } from '@vane/server/testing';
import { FaultProxy, rawResponse } from '@vane/test-harness';

/**
 * Faults between the client and the local server, injected by a TCP proxy on
 * loopback. The client runs on hand-driven timers (backoff, TTL, cooldown,
 * idle timeout); the sockets are real.
 */
let server: VaneServer;
let proxy: FaultProxy;
let timers: ManualTimers;
let logger: MemoryLogger;
let client: VaneClient;
let violations: string[];

const isStream = (line: string): boolean => line.startsWith('GET /v1/stream ');
const isSync = (line: string): boolean => line.startsWith('GET /v1/sync ');

beforeEach(async () => {
  server = await startVaneServer({ seed: seed(), port: 0 });
  proxy = await FaultProxy.start(server.port);
  timers = new ManualTimers();
  logger = new MemoryLogger();
  violations = [];
});

afterEach(async () => {
  await client?.close();
  await proxy.close();
  await server.close();
  expect(violations).toEqual([]);
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
    ttlMs: 60_000,
    streamCooldownMs: 300_000,
    ...options,
  });
  // The invariant under every fault: the cache is never empty and never half a snapshot.
  client.onChange(() => checkInvariants('on change'));
  return client;
}

function checkInvariants(when: string): void {
  const configs = client.configs();
  if (configs.size < 8) violations.push(`${when}: only ${configs.size} configs in the cache`);
  if (client.config('db.host') !== 'db.internal') violations.push(`${when}: db.host lost`);
  if (client.secret('stripe.api_key') === null) violations.push(`${when}: secret lost`);
  const pair = [client.config('pair.a'), client.config('pair.b')];
  if (pair[0] !== pair[1] && !(pair[0] === 'v2' && pair[1] === 'v1'))
    violations.push(`${when}: half-updated pair ${JSON.stringify(pair)}`);
}

async function connected(): Promise<void> {
  await waitForStatus(client, (s) => s.connected, { what: 'stream connected' });
  await until(() => proxy.openConnections > 0 && server.stats().streams === 1, 'server sees the stream');
}

/** Waits for a pending timer of exactly `delayMs` and fires it. */
async function fire(delayMs: number): Promise<void> {
  await until(
    () => timers.pendingDelays().includes(delayMs),
    `a ${delayMs} ms timer (pending: ${timers.pendingDelays().join(', ')})`,
  );
  await timers.advance(delayMs);
}

describe('fault injection', () => {
  it('reset mid-stream: backs off, reconnects with Last-Event-ID and gets the missed patches replayed', async () => {
    await start();
    await connected();
    const syncsBefore = proxy.count('/v1/sync');
    expect(proxy.reset(isStream)).toBe(1);
    await until(() => logger.text('warn').includes('stream error 1 of 3'), 'first error logged');
    checkInvariants('after reset');
    const revision = server.admin.setConfig('shop', 'db.pool.max', 31);
    await fire(1000);
    await waitForRevision(client, revision);
    expect(client.config('db.pool.max')).toBe(31);
    expect(client.connected).toBe(true);
    expect(proxy.count('/v1/sync')).toBe(syncsBefore);
  });

  it('a Last-Event-ID older than the server keeps: resync, then a conditional sync catches up', async () => {
    await proxy.close();
    await server.close();
    server = await startVaneServer({ seed: seed(), port: 0, historySize: 1 });
    proxy = await FaultProxy.start(server.port);
    await start();
    await connected();
    const syncsBefore = proxy.count('/v1/sync');
    proxy.reset(isStream);
    await until(() => logger.text('warn').includes('stream error 1 of 3'), 'first error logged');
    server.admin.setConfig('shop', 'db.pool.max', 40);
    const revision = server.admin.setConfig('shop', 'db.pool.max', 41);
    await fire(1000);
    await waitForRevision(client, revision);
    expect(client.config('db.pool.max')).toBe(41);
    expect(proxy.count('/v1/sync')).toBe(syncsBefore + 1);
  });

  it('stall: 45 s of silence is a transport error; the client reconnects and catches up', async () => {
    await start();
    await connected();
    proxy.stall(true);
    const revision = server.admin.setConfig('shop', 'db.pool.max', 32);
    await timers.advance(44_999);
    expect(client.config('db.pool.max')).toBe(20);
    await timers.advance(1);
    await until(() => logger.text('warn').includes('silent for 45000 ms'), 'idle timeout');
    checkInvariants('after stall');
    proxy.stall(false);
    await fire(1000);
    await waitForRevision(client, revision);
    expect(client.config('db.pool.max')).toBe(32);
  });

  it('an event cut in half is never applied in part; the reconnect delivers it whole', async () => {
    await start();
    await connected();
    proxy.cutNextChunk(isStream);
    const revision = server.admin.setConfig('shop', 'pair.a', 'v2');
    await until(() => logger.text('warn').includes('stream error 1 of 3'), 'cut connection noticed');
    expect(client.config('pair.a')).toBe('v1');
    expect(client.revision).toBe(revision - 1);
    await fire(1000);
    await waitForRevision(client, revision);
    expect(client.config('pair.a')).toBe('v2');
  });

  it('garbage JSON from sync: the foreground call gets a typed error, background syncs log it, the cache stays whole', async () => {
    await start({ stream: false });
    proxy.onRequest((line) =>
      isSync(line)
        ? rawResponse(
            200,
            '{"service": {"slug": "shop", "kind": "backend"}, "revision": 99, "configs": {"x": TOPSECRET',
            { etag: '"junk"' },
          )
        : undefined,
    );
    const error = await client.sync().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'VANE_UNEXPECTED_RESPONSE' });
    expect(String((error as Error).message)).not.toContain('TOPSECRET');
    await timers.advance(60_000);
    await until(() => logger.text('warn').includes('not valid JSON'), 'background failure logged');
    checkInvariants('after garbage');
    expect(client.revision).toBe(server.revision('shop'));
    proxy.onRequest(undefined);
    const revision = server.admin.setConfig('shop', 'db.pool.max', 33);
    await fire(60_000);
    await waitForRevision(client, revision);
  });

  it('garbage JSON in a stream event: dropped, logged, and a resync repairs the cache', async () => {
    await start();
    await connected();
    server.admin.setConfig('shop', 'db.pool.max', 34);
    await until(() => client.config('db.pool.max') === 34, 'patch applied');
    proxy.onRequest((line) =>
      isStream(line)
        ? rawResponse(
            200,
            `id: 99\nevent: patch\ndata: {"base": ${client.revision}, "revision": 99, "configs": {"db.host": nope\n\n`,
            { 'content-type': 'text/event-stream' },
          )
        : undefined,
    );
    const syncsBefore = proxy.count('/v1/sync');
    proxy.reset(isStream);
    await fire(1000);
    await until(() => logger.text('warn').includes('malformed patch event'), 'garbage event logged');
    await until(() => proxy.count('/v1/sync') > syncsBefore, 'resync after garbage');
    checkInvariants('after garbage event');
    expect(client.revision).toBe(server.revision('shop'));
  });

  it('a burst of 5xx: falls back to polling (connected false, nothing thrown), retries the poll within a backoff (not a TTL), returns to the stream after the cooldown', async () => {
    await start();
    await connected();
    proxy.onRequest((line) =>
      isStream(line) || isSync(line) ? rawResponse(503, '{"error":"unavailable","message":"down"}') : undefined,
    );
    proxy.reset(isStream);
    await until(() => logger.text('warn').includes('stream error 1 of 3'), 'error 1');
    await fire(1000);
    await until(() => logger.text('warn').includes('stream error 2 of 3'), 'error 2');
    await fire(2000);
    await waitForStatus(client, (s) => !s.connected, { what: 'fallback to polling' });
    expect(logger.text('warn')).toContain('3 consecutive stream errors');
    await until(
      () => logger.text('warn').includes('background sync (fallback to polling) failed'),
      'fallback sync failed quietly',
    );
    checkInvariants('during 5xx burst');

    // Sync heals first; the stream stays broken: the failed fallback poll is retried after a backoff, not a TTL.
    proxy.onRequest((line) =>
      isStream(line) ? rawResponse(503, '{"error":"unavailable","message":"down"}') : undefined,
    );
    const events: ChangeEvent[] = [];
    client.onChange((e) => events.push(e));
    server.admin.setConfig('shop', 'pair.a', 'v2');
    const revision = server.admin.setConfig('shop', 'pair.b', 'v2');
    // Both arrive in one 200: the first listener call already sees both.
    client.onChange(() => {
      if (client.config('pair.a') !== client.config('pair.b')) violations.push('listener saw half a snapshot');
    });
    await fire(1000);
    await waitForRevision(client, revision);
    expect(events.map((e) => e.key).sort()).toEqual(['pair.a', 'pair.b']);
    expect(client.connected).toBe(false);

    proxy.onRequest(undefined);
    await fire(300_000 - 1000);
    await connected();
    const next = server.admin.setConfig('shop', 'db.pool.max', 35);
    await waitForRevision(client, next);
  });

  it('a stream accepted with 200 and resync, then cut (a buffering proxy), is an error: backoff grows, the client falls back to polling and retries once per cooldown', async () => {
    await start();
    await connected();
    proxy.onRequest((line) =>
      isStream(line)
        ? rawResponse(200, `id: ${client.revision}\nevent: resync\ndata: {"revision": ${client.revision}}\n\n`, {
            'content-type': 'text/event-stream',
          })
        : undefined,
    );
    proxy.reset(isStream);
    await until(() => logger.text('warn').includes('stream error 1 of 3'), 'error 1');
    await fire(1000);
    // Accepted, resync, closed: still a failure, and the backoff doubles.
    await until(() => logger.text('warn').includes('stream error 2 of 3'), 'error 2, not a reset count');
    await fire(2000);
    await waitForStatus(client, (s) => !s.connected, { what: 'fallback to polling' });
    expect(logger.text('warn')).toContain('3 consecutive stream errors');
    expect(client.status.mode).toBe('polling');
    const attempts = proxy.count('/v1/stream');
    expect(attempts).toBe(3);
    // The cooldown passes: one attempt, cut again, straight back to the cooldown (no fresh three tries).
    await fire(300_000);
    await until(() => proxy.count('/v1/stream') === attempts + 1, 'one attempt after the cooldown');
    await until(
      () => !client.connected && timers.pendingDelays().includes(300_000),
      `back to the cooldown (pending: ${timers.pendingDelays().join(', ')})`,
    );
    checkInvariants('after flapping');
    expect(proxy.count('/v1/stream')).toBe(attempts + 1);
  });

  it('a stream that stayed open for streamHealthyMs resets the error count and the backoff', async () => {
    await start({ streamHealthyMs: 30_000, streamIdleTimeoutMs: 120_000 });
    await connected();
    proxy.reset(isStream);
    await until(() => logger.text('warn').includes('stream error 1 of 3'), 'error 1');
    await fire(1000);
    await connected();
    // Open for less than the healthy interval: the count goes on.
    await timers.advance(29_000);
    proxy.reset(isStream);
    await until(() => logger.text('warn').includes('stream error 2 of 3'), 'error 2');
    await fire(2000);
    await connected();
    await timers.advance(30_000);
    proxy.reset(isStream);
    await until(() => logger.text('warn').match(/stream error 1 of 3/g)?.length === 2, 'count reset to 1');
    expect(timers.pendingDelays()).toContain(1000);
    expect(client.connected).toBe(true);
  });

  it('the stream failing while syncs work never raises to the caller and never empties the cache', async () => {
    await start({ streamErrorThreshold: 2 });
    await connected();
    proxy.onRequest((line) => (isStream(line) ? 'reset' : undefined));
    proxy.reset(isStream);
    await fire(1000);
    await waitForStatus(client, (s) => !s.connected, { what: 'fallback after 2 errors' });
    checkInvariants('after fallback');
    await expect(client.sync()).resolves.toMatchObject({ status: 'not-modified' });
  });
});
