import { existsSync, readFileSync } from 'node:fs';
import { ManualTimers, flush } from '../test/helpers/manual-timers.js';
import {
  FakeTransport,
  MemoryLogger,
  StreamBody,
  errorBody,
  json,
  type FakeResponse,
} from '../test/helpers/fake-transport.js';
import type { ChangeEvent } from './store/change-event.js';
import { VaneError } from './errors.js';
import type { TransportRequest } from './http/transport.js';
import { VaneClient } from './vane-client.js';
import type { VaneClientOptions } from './options.js';
import { until, waitForRevision, waitForStatus } from '@vane/server/testing';

const SK = 'svs_unit_test_secret_key_0001';
const PK = 'svp_unit_test_public_key_0001';

/** A tiny in-memory service: snapshot with ETag, and streams the test drives. */
class FakeService {
  revision = 7;
  kind = 'backend';
  configs: Record<string, unknown> = {
    'db.host': 'db.internal',
    'db.pool.max': 20,
    'cors.origins': ['https://a.example'],
    'banner.text': null,
  };
  flags: Record<string, { is_enabled: boolean; starts_at: null; ends_at: null; is_active: boolean }> = {
    on: { is_enabled: true, starts_at: null, ends_at: null, is_active: true },
    off: { is_enabled: false, starts_at: null, ends_at: null, is_active: false },
  };
  secrets: Record<string, { type: 'text' | 'file'; value: string; version: number }> = {
    'stripe.api_key': { type: 'text', value: 'rk_live_TOPSECRET', version: 3 },
    'tls.pem': { type: 'file', value: 'PEM-TOPSECRET', version: 1 },
  };
  syncOverride: ((req: TransportRequest) => FakeResponse | undefined) | undefined;
  streamOverride: ((req: TransportRequest) => FakeResponse | undefined) | undefined;
  other: ((req: TransportRequest) => FakeResponse) | undefined;
  streams: StreamBody[] = [];

  etag(): string {
    return `"r${this.revision}-${this.kind}"`;
  }

  body(): unknown {
    return {
      service: { slug: 'shop', kind: this.kind },
      revision: this.revision,
      configs: this.configs,
      flags: this.flags,
      secrets: this.secrets,
    };
  }

  handle = (req: TransportRequest): FakeResponse => {
    const path = new URL(req.url).pathname;
    if (path === '/v1/sync') {
      const o = this.syncOverride?.(req);
      if (o) return o;
      if (req.headers['if-none-match'] === this.etag()) return { status: 304, headers: { etag: this.etag() } };
      return json(200, this.body(), { etag: this.etag() });
    }
    if (path === '/v1/stream') {
      const o = this.streamOverride?.(req);
      if (o) return o;
      const body = new StreamBody();
      this.streams.push(body);
      return { status: 200, headers: { 'content-type': 'text/event-stream' }, body };
    }
    if (this.other) return this.other(req);
    return errorBody(404, 'not_found');
  };

  get stream(): StreamBody {
    return this.streams[this.streams.length - 1]!;
  }
}

interface Harness {
  service: FakeService;
  transport: FakeTransport;
  timers: ManualTimers;
  logger: MemoryLogger;
  options: VaneClientOptions;
}

function harness(overrides: Partial<VaneClientOptions> = {}): Harness {
  const service = new FakeService();
  const transport = new FakeTransport(service.handle);
  const timers = new ManualTimers();
  const logger = new MemoryLogger();
  const options: VaneClientOptions = {
    baseUrl: 'https://shop.vane.example',
    apiKey: SK,
    transport,
    timers,
    clock: timers,
    logger,
    random: () => 0,
    ...overrides,
  };
  return { service, transport, timers, logger, options };
}

const clients: VaneClient[] = [];
async function create(h: Harness): Promise<VaneClient> {
  const client = await VaneClient.create(h.options);
  clients.push(client);
  return client;
}
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

function collect(client: VaneClient): ChangeEvent[] {
  const events: ChangeEvent[] = [];
  client.onChange((e) => events.push(e));
  return events;
}

function expectNoLeak(h: Harness, ...errors: unknown[]): void {
  const everything =
    h.logger.text() +
    errors.map((e) => (e instanceof Error ? `${e.message} ${String(e.cause)} ${e.stack ?? ''}` : String(e))).join(' ');
  expect(everything).not.toContain(SK);
  expect(everything).not.toContain('TOPSECRET');
}

describe('VaneClient.create', () => {
  it('returns a client with a full cache after the blocking initial sync', async () => {
    const h = harness({ stream: false });
    const client = await create(h);
    expect(client.config('db.host')).toBe('db.internal');
    expect(client.config('db.pool.max', 5)).toBe(20);
    expect(client.config('missing', 5)).toBe(5);
    expect(client.config('missing')).toBeUndefined();
    expect(client.config('banner.text', 'x')).toBeNull();
    expect(client.configLookup('banner.text')).toEqual({ found: true, value: null });
    expect(client.configLookup('missing')).toEqual({ found: false, value: undefined });
    expect(client.configs().get('cors.origins')).toEqual(['https://a.example']);
    expect(client.flag('on')).toBe(true);
    expect(client.flag('off', true)).toBe(false);
    expect(client.flag('missing')).toBe(false);
    expect(client.flag('missing', true)).toBe(true);
    expect(client.flagState('off')).toEqual({ defined: true, active: false });
    expect(client.flagState('missing')).toEqual({ defined: false, active: false });
    expect(client.secret('stripe.api_key')).toBe('rk_live_TOPSECRET');
    expect(client.secret('tls.pem')).toBeNull();
    expect(client.secretFile('stripe.api_key')).toBeNull();
    expect(readFileSync(client.secretFile('tls.pem')!, 'utf8')).toBe('PEM-TOPSECRET');
    expect(client.secret('absent')).toBeNull();
    expect(() => client.requireSecret('absent')).toThrow(expect.objectContaining({ code: 'VANE_SECRET_NOT_FOUND' }));
    expect(() => client.requireSecretFile('stripe.api_key')).toThrow(
      expect.objectContaining({ code: 'VANE_SECRET_NOT_FOUND' }),
    );
    expect(client.secretInfo('tls.pem')).toEqual({ type: 'file', version: 1 });
    expect(client.keyType).toBe('sk');
    expect(client.serviceKind).toBe('backend');
    expect(client.serviceSlug).toBe('shop');
    expect(client.revision).toBe(7);
    expect(client.connected).toBe(false);
    expect(client.billingOverdue).toBe(false);
    expect(client.lastSyncAt.getTime()).toBe(h.timers.now());
    expect(client.snapshotAgeMs).toBe(0);
    const req = h.transport.to('/v1/sync')[0]!;
    expect(req.headers['x-service-api-key']).toBe(SK);
    expect(req.headers['if-none-match']).toBeUndefined();
    expect(req.headers['host']).toBeUndefined();
  });

  it.each([
    [errorBody(401, 'unauthorized'), 'VANE_UNAUTHORIZED', 401],
    [errorBody(402, 'billing_overdue'), 'VANE_BILLING_OVERDUE', 402],
    [errorBody(404, 'not_found'), 'VANE_NOT_FOUND', 404],
    [errorBody(429, 'rate_limited', 'slow down', {}, { 'retry-after': '2' }), 'VANE_RATE_LIMITED', 429],
    [errorBody(429, 'quarantined', 'q', { until: '2026-11-22T11:00:00Z' }), 'VANE_QUARANTINED', 429],
    [errorBody(500, 'oops'), 'VANE_UNEXPECTED_RESPONSE', 500],
    [json(200, { revision: 'x' }), 'VANE_UNEXPECTED_RESPONSE', 200],
    [{ status: 200, body: '{"service": {"slug": "rk_live_TOPSECRET' }, 'VANE_UNEXPECTED_RESPONSE', 200],
    // Without Vane-Protocol, whatever the status says: something else answers at baseUrl.
    [{ ...errorBody(404, 'not_found'), foreign: true }, 'VANE_NOT_A_VANE_SERVICE', 404],
    [{ ...errorBody(401, 'unauthorized'), foreign: true }, 'VANE_NOT_A_VANE_SERVICE', 401],
    [{ ...json(200, new FakeService().body()), foreign: true }, 'VANE_NOT_A_VANE_SERVICE', 200],
  ])('rejects with a typed error and leaves nothing running (%#)', async (answer, code, status) => {
    const h = harness();
    h.service.syncOverride = () => answer;
    const error = await VaneClient.create(h.options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VaneError);
    expect(error).toMatchObject({ code, status });
    expect(h.timers.pendingCount).toBe(0);
    expect(h.transport.closed).toBe(true);
    expect(h.transport.to('/v1/stream')).toHaveLength(0);
    expectNoLeak(h, error);
  });

  it('rejects a transport failure with VANE_TRANSPORT and a sanitised cause', async () => {
    const h = harness();
    h.transport.handler = () => {
      throw Object.assign(new Error(`connect ECONNREFUSED (key ${SK})`), {
        code: 'ECONNREFUSED',
        headers: { 'x-service-api-key': SK },
      });
    };
    const error = (await VaneClient.create(h.options).catch((e: unknown) => e)) as VaneError;
    expect(error.code).toBe('VANE_TRANSPORT');
    expect(error.message).toContain('ECONNREFUSED');
    expect(Object.keys(error.cause as object)).not.toContain('headers');
    expectNoLeak(h, error);
    expect(h.timers.pendingCount).toBe(0);
  });

  it('times out after timeoutMs on its own timers', async () => {
    const h = harness({ timeoutMs: 10_000 });
    h.transport.handler = (req) =>
      new Promise((_, reject) =>
        req.signal.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' }))),
      );
    const pending = VaneClient.create(h.options).catch((e: unknown) => e);
    await flush();
    expect(h.timers.pendingDelays()).toEqual([10_000]);
    await h.timers.advance(10_000);
    expect(await pending).toMatchObject({ code: 'VANE_TRANSPORT', timedOut: true });
  });

  it('refuses a malformed key before any request', async () => {
    const h = harness({ apiKey: 'sk_live_0123456789abcdef' });
    const error = await VaneClient.create(h.options).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'VANE_INVALID_ARGUMENT' });
    expect((error as Error).message).not.toContain('0123456789abcdef');
    expect(h.transport.requests).toHaveLength(0);
  });
});

describe('background sync (TTL)', () => {
  it('sends If-None-Match; 304 changes nothing and resets the TTL; 200 swaps and notifies', async () => {
    const h = harness({ stream: false, ttlMs: 60_000 });
    const client = await create(h);
    const events = collect(client);
    expect(h.timers.pendingDelays()).toEqual([60_000]);
    await h.timers.advance(60_000);
    // Even a 304 rewrites file secrets (real I/O) before it counts as done.
    await until(() => client.lastSyncAt.getTime() === h.timers.now(), '304 done');
    const second = h.transport.to('/v1/sync')[1]!;
    expect(second.headers['if-none-match']).toBe('"r7-backend"');
    expect(events).toEqual([]);
    expect(client.lastSyncAt.getTime()).toBe(h.timers.now());
    expect(h.timers.pendingDelays()).toEqual([60_000]);

    h.service.revision = 8;
    h.service.configs = { ...h.service.configs, 'db.pool.max': 30 };
    h.service.flags = {
      ...h.service.flags,
      off: { is_enabled: true, starts_at: null, ends_at: null, is_active: true },
    };
    await h.timers.advance(60_000);
    // The 200 path writes file secrets (real I/O) before the swap.
    await waitForRevision(client, 8);
    expect(client.config('db.pool.max')).toBe(30);
    expect(client.revision).toBe(8);
    expect(events).toEqual([
      { kind: 'config', key: 'db.pool.max', oldValue: 20, newValue: 30, revision: 8 },
      { kind: 'flag', key: 'off', oldValue: false, newValue: true, revision: 8 },
    ]);
  });

  it('never throws: failures are logged, the cache keeps serving, the next tick retries', async () => {
    const h = harness({ stream: false });
    const client = await create(h);
    h.service.syncOverride = () => errorBody(503, 'unavailable');
    await h.timers.advance(60_000);
    expect(client.config('db.host')).toBe('db.internal');
    expect(h.logger.text('warn')).toContain('background sync (ttl) failed');
    expect(h.timers.pendingDelays()).toEqual([60_000]);
    h.service.syncOverride = () => ({ status: 200, body: 'not json rk_live_TOPSECRET' });
    await h.timers.advance(60_000);
    expect(client.config('db.host')).toBe('db.internal');
    expectNoLeak(h);
  });

  it('402 halts background work, keeps serving and sets billingOverdue; a foreground sync that succeeds resumes', async () => {
    const h = harness({ stream: false });
    const client = await create(h);
    h.service.syncOverride = () => errorBody(402, 'billing_overdue');
    await h.timers.advance(60_000);
    expect(client.billingOverdue).toBe(true);
    expect(client.config('db.host')).toBe('db.internal');
    expect(h.timers.pendingCount).toBe(0);
    expect(h.logger.text('error')).toContain('billing overdue');
    await expect(client.sync()).rejects.toMatchObject({ code: 'VANE_BILLING_OVERDUE' });
    h.service.syncOverride = undefined;
    await expect(client.sync()).resolves.toEqual({ status: 'not-modified', revision: 7 });
    expect(client.billingOverdue).toBe(false);
    expect(h.timers.pendingDelays()).toEqual([60_000]);
  });

  it('429 honours Retry-After; quarantine is reported apart', async () => {
    const h = harness({ stream: false });
    await create(h);
    h.service.syncOverride = () => errorBody(429, 'rate_limited', 'slow', {}, { 'retry-after': '300' });
    await h.timers.advance(60_000);
    expect(h.timers.pendingDelays()).toEqual([300_000]);
    expect(h.logger.text('warn')).toContain('rate limited');
    h.service.syncOverride = () => errorBody(429, 'quarantined', 'q', { until: '2026-11-22T12:00:00Z' });
    await h.timers.advance(300_000);
    expect(h.logger.text('error')).toContain('quarantined until 2026-11-22T12:00:00.000Z');
  });
});

describe('stream', () => {
  async function streaming(overrides: Partial<VaneClientOptions> = {}) {
    const h = harness(overrides);
    const client = await create(h);
    await waitForStatus(client, (s) => s.connected, { what: 'stream connected' });
    return { h, client };
  }

  it('connects with Accept and Last-Event-ID, and applies resync and patch events', async () => {
    const { h, client } = await streaming();
    const req = h.transport.to('/v1/stream')[0]!;
    expect(req.headers['accept']).toBe('text/event-stream');
    expect(req.headers['last-event-id']).toBe('7');
    const events = collect(client);
    h.service.stream.push('event: resync\nid: 7\ndata: {"revision": 7}\n\n');
    await flush();
    expect(h.transport.to('/v1/sync')).toHaveLength(1);
    h.service.stream.push(
      'event: patch\nid: 8\ndata: {"base": 7, "revision": 8, "configs": {"db.pool.max": 30}, "deleted": {"configs": ["banner.text"]}}\n\n',
    );
    await waitForRevision(client, 8);
    expect(client.config('db.pool.max')).toBe(30);
    expect(client.configLookup('banner.text').found).toBe(false);
    expect(events.map((e) => `${e.kind}:${e.key}`)).toEqual(['config:db.pool.max', 'config:banner.text']);
    expect(h.transport.to('/v1/sync')).toHaveLength(1);
    h.service.revision = 12;
    h.service.stream.push('event: resync\nid: 12\ndata: {"revision": 12}\n\n');
    await waitForRevision(client, 12);
    expect(h.transport.to('/v1/sync')).toHaveLength(2);
  });

  it('resyncs on a patch whose base does not match, and ignores stale patches and unknown events', async () => {
    const { h, client } = await streaming();
    h.service.stream.push('event: patch\ndata: {"base": 5, "revision": 6, "configs": {"x": 1}}\n\n');
    h.service.stream.push('event: hello\ndata: whatever\n\n: ping\n\n');
    await flush();
    expect(client.configLookup('x').found).toBe(false);
    expect(h.transport.to('/v1/sync')).toHaveLength(1);
    h.service.revision = 9;
    h.service.configs = { only: 1 };
    h.service.stream.push('event: patch\ndata: {"base": 8, "revision": 9, "configs": {"x": 1}}\n\n');
    await waitForRevision(client, 9);
    expect(client.config('only')).toBe(1);
    expect(client.configLookup('x').found).toBe(false);
  });

  it('a malformed patch is never half applied: it is dropped and a resync follows', async () => {
    const { h, client } = await streaming();
    h.service.stream.push(
      'event: patch\ndata: {"base": 7, "revision": 8, "configs": {"db.host": "new", "bad": {"o": 1}}}\n\n',
    );
    h.service.stream.push('event: patch\ndata: {"base": 7, "revision": 8, "configs": {"db.h\n\n');
    await until(() => h.transport.to('/v1/sync').length >= 2, 'resync');
    expect(client.config('db.host')).toBe('db.internal');
    expect(client.revision).toBe(7);
    expect(h.logger.text('warn')).toContain('malformed patch event');
  });

  it('backs off with jitter, falls back to polling after 3 errors, and returns after the cooldown', async () => {
    const { h, client } = await streaming({ streamCooldownMs: 120_000, random: () => 0.5 });
    h.service.streamOverride = () => errorBody(503, 'unavailable');
    h.service.stream.fail(new Error('socket reset'));
    // random 0.5 takes a quarter off: 1000 → 750, 2000 → 1500.
    await until(
      () => h.timers.pendingDelays().includes(750),
      `first backoff, pending ${h.timers.pendingDelays().join()}`,
    );
    expect(client.connected).toBe(true);
    await h.timers.advance(750);
    await until(
      () => h.timers.pendingDelays().includes(1500),
      `second backoff, pending ${h.timers.pendingDelays().join()}`,
    );
    await h.timers.advance(1500);
    await waitForStatus(client, (s) => !s.connected, { what: 'fallback to polling' });
    expect(h.logger.text('warn')).toContain('3 consecutive stream errors');
    expect(h.timers.pendingDelays()).toContain(120_000);
    h.service.streamOverride = undefined;
    await h.timers.advance(120_000);
    await waitForStatus(client, (s) => s.connected, { what: 'back on the stream' });
    expect(h.transport.to('/v1/stream')).toHaveLength(4);
  });

  it('after a fallback to polling, polls at once, then backs off (not a whole TTL) until the service answers', async () => {
    const { h, client } = await streaming({ ttlMs: 60_000, streamCooldownMs: 60_000 });
    // The service goes down: every request is refused, as by a server that is restarting.
    let down = true;
    const handle = h.transport.handler;
    h.transport.handler = (req) => {
      if (down) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      return handle(req);
    };
    h.service.stream.fail(new Error('socket reset'));
    await until(() => h.timers.pendingDelays().includes(1000), 'first stream backoff');
    await h.timers.advance(1000);
    await until(() => h.timers.pendingDelays().includes(2000), 'second stream backoff');
    const syncsBefore = h.transport.to('/v1/sync').length;
    await h.timers.advance(2000);
    await until(() => !client.connected, 'fallback to polling');
    // The fallback's own poll went out at once (and was refused); the next one is a backoff away, not a TTL.
    await until(
      () => h.timers.pendingDelays().includes(1000),
      `poll backoff, pending ${h.timers.pendingDelays().join()}`,
    );
    expect(h.transport.to('/v1/sync')).toHaveLength(syncsBefore + 1);
    expect(h.timers.pendingDelays()).toEqual([1000, 60_000]); // the poll, and the stream's cooldown
    await h.timers.advance(1000);
    await until(() => h.timers.pendingDelays().includes(2000), 'second poll backoff');
    // The service is back, with a change made while the app could not hear it.
    down = false;
    h.service.revision = 8;
    h.service.configs = { ...h.service.configs, 'db.pool.max': 31 };
    await h.timers.advance(2000);
    await until(() => client.revision === 8, 'the change, by the poll');
    expect(client.config('db.pool.max')).toBe(31);
    expect(h.timers.pendingDelays()).toEqual([57_000, 60_000]); // the stream at the end of its cooldown; polls every TTL again
    expect(client.connected).toBe(false);
  });

  it('treats 45 s of silence as a transport error', async () => {
    const { h } = await streaming({ streamIdleTimeoutMs: 45_000 });
    await h.timers.advance(44_999);
    expect(h.transport.to('/v1/stream')).toHaveLength(1);
    await h.timers.advance(1);
    await until(() => h.logger.text('warn').includes('silent for 45000 ms'), 'idle error logged');
  });

  it('stream: false never opens the stream', async () => {
    const h = harness({ stream: false });
    await create(h);
    await flush();
    expect(h.transport.to('/v1/stream')).toHaveLength(0);
  });

  it("a stream answered by something else (a proxy's own page) is a stream error that says so, its body unread", async () => {
    const { h, client } = await streaming();
    const page = new StreamBody();
    h.service.streamOverride = () => ({
      status: 502,
      headers: { 'content-type': 'text/html' },
      body: page,
      foreign: true,
    });
    h.service.stream.end();
    await until(() => h.timers.pendingDelays().includes(1000), 'backoff scheduled');
    await h.timers.advance(1000);
    await until(() => h.logger.text('warn').includes('no Vane service answers at shop.vane.example'), 'logged');
    expect(h.logger.text('warn')).toContain('answered 502 without the Vane-Protocol header');
    expect(page.signal?.aborted).toBe(true);
    expect(client.revision).toBe(7);
  });

  it('a 402 on the stream halts everything', async () => {
    const { h, client } = await streaming();
    h.service.streamOverride = () => errorBody(402, 'billing_overdue');
    h.service.stream.end();
    await until(
      () => h.timers.pendingDelays().includes(1000),
      `backoff scheduled, pending ${h.timers.pendingDelays().join()}`,
    );
    await h.timers.advance(1000);
    await waitForStatus(client, (s) => s.billingOverdue, { what: 'billing halt' });
    expect(client.connected).toBe(false);
    expect(h.timers.pendingCount).toBe(0);
  });
});

describe('secrets access rules', () => {
  it('a public key refuses every secret read (a throw) and write (a rejection, never a throw) before any request', async () => {
    const h = harness({ apiKey: PK, stream: false });
    h.service.secrets = {};
    const client = await create(h);
    const before = h.transport.requests.length;
    expect(client.keyType).toBe('pk');
    for (const read of [
      () => client.secret('a'),
      () => client.secretFile('a'),
      () => client.requireSecret('a'),
      () => client.secretInfo('a'),
    ]) {
      expect(read).toThrow(expect.objectContaining({ code: 'VANE_PUBLIC_KEY_SECRET_ACCESS' }));
    }
    for (const write of [
      () => client.setSecret('a', 'v'),
      () => client.deleteSecret('a'),
      () => client.deleteSecretVersion('a', 1),
    ]) {
      let pending: Promise<unknown> | undefined;
      expect(() => (pending = write())).not.toThrow();
      await expect(pending).rejects.toMatchObject({ code: 'VANE_PUBLIC_KEY_SECRET_ACCESS' });
    }
    expect(h.transport.requests.length).toBe(before);
  });

  it('a frontend service refuses secret reads whatever the key', async () => {
    const h = harness({ stream: false });
    h.service.kind = 'frontend';
    h.service.secrets = {};
    const client = await create(h);
    expect(() => client.secret('a')).toThrow(expect.objectContaining({ code: 'VANE_FRONTEND_SECRET_READ' }));
    expect(() => client.secretFile('a')).toThrow(expect.objectContaining({ code: 'VANE_FRONTEND_SECRET_READ' }));
  });
});

describe('secret writes', () => {
  it('sends the PROTOCOL §9 requests and never touches the cache', async () => {
    const h = harness({ stream: false });
    const client = await create(h);
    h.service.other = (req) =>
      req.method === 'PUT' ? json(200, { key: 'a.b', type: 'file', version: 4 }) : { status: 204 };
    await expect(client.setSecret('a.b', 'v', { type: 'file' })).resolves.toEqual({
      key: 'a.b',
      type: 'file',
      version: 4,
    });
    await client.deleteSecret('a.b');
    await client.deleteSecretVersion('a.b', 2);
    const writes = h.transport.requests.filter((r) => r.url.includes('/v1/secrets/'));
    expect(writes.map((r) => `${r.method} ${new URL(r.url).pathname} ${r.body ?? ''}`)).toEqual([
      'PUT /v1/secrets/a.b {"value":"v","type":"file"}',
      'DELETE /v1/secrets/a.b ',
      'DELETE /v1/secrets/a.b/versions/2 ',
    ]);
    expect(client.secret('a.b')).toBeNull();
  });

  it('a 504 commit_outcome_unknown is settled by reading: a write that landed is not sent twice', async () => {
    const h = harness({ stream: false });
    const client = await create(h);
    const rotated = 'rk_live_TOPSECRET_rotated';
    h.service.other = (req) => {
      // The service committed the write, and its answer was lost on the way back.
      h.service.secrets['stripe.api_key'] = { type: 'text', value: rotated, version: 4 };
      h.service.revision++;
      return errorBody(504, 'commit_outcome_unknown', `no answer for ${req.method}`);
    };
    // #region settle-commit-outcome
    try {
      await client.setSecret('stripe.api_key', rotated);
    } catch (error) {
      if (!(error instanceof VaneError) || error.code !== 'VANE_COMMIT_OUTCOME_UNKNOWN') throw error;
      // The write may have landed: read before writing it again (each write of a secret is a new version).
      await client.sync();
      if (client.secret('stripe.api_key') !== rotated) await client.setSecret('stripe.api_key', rotated);
    }
    // #endregion settle-commit-outcome
    expect(h.transport.requests.filter((r) => r.method === 'PUT')).toHaveLength(1);
    expect(client.secretInfo('stripe.api_key')).toEqual({ type: 'text', version: 4 });
  });

  it('validates before sending', async () => {
    const h = harness({ stream: false });
    const client = await create(h);
    const before = h.transport.requests.length;
    await expect(client.deleteSecretVersion('a', 0)).rejects.toThrow(
      expect.objectContaining({ code: 'VANE_INVALID_ARGUMENT' }),
    );
    await expect(client.deleteSecretVersion('a', 1.5)).rejects.toThrow('1-based integer');
    await expect(client.setSecret('bad key', 'v')).rejects.toThrow(
      expect.objectContaining({ code: 'VANE_INVALID_ARGUMENT' }),
    );
    await expect(client.setSecret('a', 5 as unknown as string)).rejects.toThrow('value must be a string');
    await expect(client.setSecret('a', 'v', { type: 'blob' as 'text' })).rejects.toThrow('type must be');
    await expect(client.setSecret('a', 'v', null as unknown as { type: 'text' })).rejects.toThrow(
      expect.objectContaining({
        code: 'VANE_INVALID_ARGUMENT',
        message: 'setSecret: options must be an object, got null',
      }),
    );
    expect(h.transport.requests.length).toBe(before);
  });

  it.each([
    [401, 'unauthorized', 'VANE_UNAUTHORIZED'],
    [402, 'billing_overdue', 'VANE_BILLING_OVERDUE'],
    [404, 'not_found', 'VANE_NOT_FOUND'],
    [429, 'rate_limited', 'VANE_RATE_LIMITED'],
    [504, 'commit_outcome_unknown', 'VANE_COMMIT_OUTCOME_UNKNOWN'],
    [503, 'store_unavailable', 'VANE_UNEXPECTED_RESPONSE'],
  ])('maps %p to a typed error', async (status, error, code) => {
    const h = harness({ stream: false });
    const client = await create(h);
    h.service.other = () => errorBody(status, error, `${error} for svs_unit_test_secret_key_0001`);
    const caught = await client.setSecret('a', 'TOPSECRET').catch((e: unknown) => e);
    expect(caught).toMatchObject({ code, status });
    expectNoLeak(h, caught);
  });
});

describe('evaluateAb', () => {
  it('sends known keys once, in batches of 200, with string attributes; missing answers are false', async () => {
    const h = harness({ stream: false });
    h.service.flags = Object.fromEntries(
      Array.from({ length: 250 }, (_, i) => [
        `f${i}`,
        { is_enabled: true, starts_at: null, ends_at: null, is_active: true },
      ]),
    );
    const client = await create(h);
    h.service.other = (req) => {
      const body = JSON.parse(req.body!) as { keys: string[] };
      return json(200, { results: Object.fromEntries(body.keys.filter((k) => k !== 'f3').map((k) => [k, true])) });
    };
    const keys = ['unknown', ...Array.from({ length: 250 }, (_, i) => `f${i}`), 'f0'];
    const results = await client.evaluateAb(keys, { userId: 'u-1', attributes: { country: 'DE', plan: null } });
    const calls = h.transport
      .to('/v1/flags/evaluate-ab')
      .map((r) => JSON.parse(r.body!) as { keys: string[]; user_id: string; attributes: unknown });
    expect(calls.map((c) => c.keys.length)).toEqual([200, 50]);
    expect(calls[0]!.user_id).toBe('u-1');
    expect(calls[0]!.attributes).toEqual({ country: 'DE' });
    expect(calls.flatMap((c) => c.keys)).not.toContain('unknown');
    expect(results['unknown']).toBe(false);
    expect(results['f3']).toBe(false);
    expect(results['f0']).toBe(true);
    expect(Object.keys(results)).toHaveLength(251);
  });

  it('rejects a non-string attribute before any request, and maps 403', async () => {
    const h = harness({ stream: false });
    const client = await create(h);
    const before = h.transport.requests.length;
    await expect(
      client.evaluateAb(['on'], { userId: 'u', attributes: { age: 42 as unknown as string } }),
    ).rejects.toThrow('attribute "age" must be a string, got number');
    expect(h.transport.requests.length).toBe(before);
    await expect(client.evaluateAb(['unknown'], { userId: 'u' })).resolves.toEqual({ unknown: false });
    expect(h.transport.requests.length).toBe(before);
    h.service.other = () => errorBody(403, 'addon_inactive');
    await expect(client.evaluateAb(['on'], { userId: 'u' })).rejects.toMatchObject({
      code: 'VANE_ADDON_NOT_AVAILABLE',
      status: 403,
    });
  });
});

describe('change listeners and close', () => {
  it('a throwing listener is logged and does not stop the others; unsubscribe works', async () => {
    const h = harness({ stream: false });
    const client = await create(h);
    const seen: string[] = [];
    client.onChange(() => {
      throw new Error('boom with rk_live_TOPSECRET');
    });
    const off = client.onChange((e) => seen.push(e.key));
    h.service.revision = 8;
    h.service.configs = { ...h.service.configs, 'db.host': 'other' };
    await client.sync();
    expect(seen).toEqual(['db.host']);
    expect(h.logger.text('warn')).toContain('change listener threw');
    off();
    h.service.revision = 9;
    h.service.configs = { ...h.service.configs, 'db.host': 'third' };
    await client.sync();
    expect(seen).toEqual(['db.host']);
    expectNoLeak(h);
  });

  it('an async listener that rejects is logged like a throwing one, never an unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const h = harness({ stream: false });
      const client = await create(h);
      // The listener types say void; this spec proves an async listener that rejects is still contained.
      // eslint-disable-next-line @typescript-eslint/no-misused-promises
      client.onChange(async () => {
        throw new Error('async boom with rk_live_TOPSECRET');
      });
      // eslint-disable-next-line @typescript-eslint/no-misused-promises
      client.onStatusChange(async () => {
        throw new Error('async status boom');
      });
      h.service.revision = 8;
      h.service.configs = { ...h.service.configs, 'db.host': 'other' };
      await client.sync();
      await client.close();
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
      expect(h.logger.text('warn')).toContain('change listener threw on config "db.host": Error');
      expect(h.logger.text('warn')).toContain('status listener threw: Error');
      expectNoLeak(h);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('close is idempotent, stops every timer, closes the transport and removes file secrets', async () => {
    const h = harness();
    const client = await create(h);
    await waitForStatus(client, (s) => s.connected, { what: 'stream connected' });
    const path = client.secretFile('tls.pem')!;
    expect(existsSync(path)).toBe(true);
    await Promise.all([client.close(), client.close()]);
    await client.close();
    expect(client.closed).toBe(true);
    expect(client.connected).toBe(false);
    expect(h.timers.pendingCount).toBe(0);
    expect(h.transport.closed).toBe(true);
    expect(existsSync(path)).toBe(false);
    expect(client.secretFile('tls.pem')).toBeNull();
    expect(client.config('db.host')).toBe('db.internal');
    await expect(client.sync()).rejects.toMatchObject({ code: 'VANE_CLIENT_CLOSED' });
  });
});

describe('status', () => {
  it('reports stream, polling, halted and closed through status and onStatusChange', async () => {
    const h = harness({ streamErrorThreshold: 1, streamCooldownMs: 100_000 });
    const client = await create(h);
    const seen: string[] = [];
    client.onStatusChange((st) => seen.push(`${st.mode}:${st.connected}:${st.billingOverdue}`));
    expect(client.status).toEqual({ mode: 'polling', connected: false, billingOverdue: false });
    await waitForStatus(client, (s) => s.connected, { what: 'connected' });
    expect(client.status.mode).toBe('stream');
    h.service.stream.fail(new Error('reset'));
    await waitForStatus(client, (s) => !s.connected, { what: 'fallback' });
    h.service.syncOverride = () => errorBody(402, 'billing_overdue');
    await h.timers.advance(60_000);
    await waitForStatus(client, (s) => s.billingOverdue, { what: 'halt' });
    await client.close();
    expect(seen).toEqual(['stream:true:false', 'polling:false:false', 'halted:false:true', 'closed:false:true']);
  });
});

describe('credentials seam', () => {
  it('starts the credentials before the initial sync, through the client transport; a failure fails creation', async () => {
    const h = harness();
    const { WorkloadIdentityNotConfiguredError } = await import('./errors.js');
    let context: unknown;
    const credentials = {
      keyType: '' as const,
      describe: () => 'workload identity (test)',
      headers: () => ({ authorization: 'Bearer t0' }),
      start: (ctx: unknown) => {
        context = ctx;
        throw new WorkloadIdentityNotConfiguredError('no provider matched: looked for kubernetes, aws, gcp, azure');
      },
      close: jest.fn(),
    };
    // telemetry: false, so the transport is the one given (telemetry wraps it in a span per request otherwise).
    const error = await VaneClient.create({ ...h.options, apiKey: undefined, credentials, telemetry: false }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'VANE_WORKLOAD_IDENTITY_NOT_CONFIGURED' });
    expect(context).toMatchObject({ transport: h.transport, timeoutMs: 10_000 });
    expect(h.transport.requests).toHaveLength(0);
    expect(credentials.close).toHaveBeenCalled();
    expect(h.transport.closed).toBe(true);
  });

  it('sends the credential headers, and retries once when a 401 renews them', async () => {
    const h = harness({ stream: false });
    let token = 't1';
    const credentials = {
      keyType: '' as const,
      describe: () => 'session',
      headers: () => ({ authorization: `Bearer ${token}` }),
      onUnauthorized: jest.fn(() => {
        token = 't2';
        return true;
      }),
    };
    h.service.syncOverride = (req) =>
      req.headers['authorization'] === 'Bearer t2' ? undefined : errorBody(401, 'unauthorized');
    const client = await create({ ...h, options: { ...h.options, apiKey: undefined, credentials } });
    expect(client.keyType).toBe('');
    expect(credentials.onUnauthorized).toHaveBeenCalledTimes(1);
    expect(h.transport.to('/v1/sync').map((r) => r.headers['authorization'])).toEqual(['Bearer t1', 'Bearer t2']);
    expect(h.transport.requests[0]!.headers['x-service-api-key']).toBeUndefined();
  });

  it('the stream renews credentials on a 401 and retries once', async () => {
    const h = harness();
    let token = 't1';
    const credentials = {
      keyType: '' as const,
      describe: () => 'session',
      headers: () => ({ authorization: `Bearer ${token}` }),
      onUnauthorized: jest.fn(() => {
        token = 't2';
        return true;
      }),
    };
    h.service.streamOverride = (req) =>
      req.headers['authorization'] === 'Bearer t2' ? undefined : errorBody(401, 'unauthorized');
    const client = await create({ ...h, options: { ...h.options, apiKey: undefined, credentials } });
    await waitForStatus(client, (s) => s.connected, { what: 'stream connected after renewal' });
    expect(h.transport.to('/v1/stream').map((r) => r.headers['authorization'])).toEqual(['Bearer t1', 'Bearer t2']);
    expect(h.logger.text('warn')).toBe('');
  });

  it('a credentials error on a foreground call reaches the caller; in the background it is logged', async () => {
    const h = harness({ stream: false });
    const { SessionExpiredError } = await import('./errors.js');
    let expired = false;
    const credentials = {
      keyType: '' as const,
      describe: () => 'session',
      headers: () => {
        if (expired) throw new SessionExpiredError();
        return { authorization: 'Bearer t' };
      },
    };
    const client = await create({ ...h, options: { ...h.options, apiKey: undefined, credentials } });
    expired = true;
    await expect(client.sync()).rejects.toMatchObject({ code: 'VANE_SESSION_EXPIRED' });
    await h.timers.advance(60_000);
    expect(h.logger.text('warn')).toContain('session expired');
    expect(client.config('db.host')).toBe('db.internal');
  });
});

describe('robustness', () => {
  it('rewrites file secrets on a 304 too: a file removed behind its back comes back', async () => {
    const { unlinkSync } = await import('node:fs');
    const h = harness({ stream: false });
    const client = await create(h);
    const path = client.secretFile('tls.pem')!;
    unlinkSync(path);
    await client.sync();
    expect(readFileSync(path, 'utf8')).toBe('PEM-TOPSECRET');
  });

  it('a file secret that cannot be written fails the sync with VANE_SECRET_FILE_WRITE, never a half cache', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'vane-spec-'));
    writeFileSync(join(dir, 'not-a-dir'), 'x');
    const h = harness({ stream: false, secretsDir: join(dir, 'not-a-dir', 'secrets') });
    const error = await VaneClient.create(h.options).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'VANE_SECRET_FILE_WRITE' });
    expect((error as Error).message).toContain('ENOTDIR');
    expectNoLeak(h, error);
    expect(h.timers.pendingCount).toBe(0);
    rmSync(dir, { recursive: true });
  });

  it('caps a far quarantine at maxRetryAfterMs (then at a timer Node can hold) and says so in the status', async () => {
    const h = harness({ stream: false });
    const client = await create(h);
    h.service.syncOverride = () => errorBody(429, 'quarantined', 'q', { until: '2099-01-01T00:00:00Z' });
    await h.timers.advance(60_000);
    expect(h.timers.pendingDelays()).toEqual([300_000]);
    expect(client.status).toEqual({
      mode: 'quarantined',
      connected: false,
      billingOverdue: false,
      retryAt: new Date(h.timers.now() + 300_000),
    });
    const far = harness({ stream: false, maxRetryAfterMs: 10 ** 12 });
    await create(far);
    far.service.syncOverride = h.service.syncOverride;
    await far.timers.advance(60_000);
    expect(far.timers.pendingDelays()).toEqual([2 ** 31 - 1]);
  });
});
