import { VaneClient, createBrowserBootstrap } from '@vane/client';
import { startVaneServer, type VaneServer } from '@vane/server';
import { TEST_KEYS, TEST_SECRET_VALUES, adminRequest, testSeed, until, waitForEvent } from '@vane/server/testing';
import { FaultProxy, rawResponse } from '@vane/test-harness';
import { abTesting } from '../src/ab.js';
import { createBootstrap } from '../src/bootstrap.js';
import {
  VaneBrowserClient,
  parseBootstrap,
  type VaneBootstrap,
  type VaneBrowserOptions,
  type VaneUpdate,
} from '../src/index.js';
import { shareName, sharedStream, type VaneShare } from '../src/share.js';
import { lastKnownGood } from '../src/storage.js';
import { FakeChannels, FakeLocks } from './fake-share.js';
import {
  FakeDocument,
  MemoryStorage,
  loopbackFetch,
  type LoopbackFetch,
} from '../../../test/support/loopback-fetch.js';

/**
 * `@vane/browser` in Node, with its `fetch`, against the real local server
 * behind a proxy that can cut streams and answer in the server's place.
 * Every wait is on an event or a bounded condition; no sleeps.
 */
let server: VaneServer;
let proxy: FaultProxy;
let net: LoopbackFetch;
const clients: VaneBrowserClient[] = [];

beforeEach(async () => {
  server = await startVaneServer({ seed: testSeed(), port: 0 });
  proxy = await FaultProxy.start(server.port);
  net = loopbackFetch();
});

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await net.close();
  await proxy.close();
  await server.close();
});

function client(options: Partial<VaneBrowserOptions> = {}): VaneBrowserClient {
  const made = new VaneBrowserClient({
    baseUrl: proxy.baseUrl('shop'),
    apiKey: TEST_KEYS.shopPublic,
    fetch: net.fetch,
    ...options,
  });
  clients.push(made);
  return made;
}

const connected = (c: VaneBrowserClient, what = 'stream connected'): Promise<void> =>
  until(() => c.status.connected, what, { timeoutMs: 10_000 });

const setConfig = (key: string, value: unknown): Promise<unknown> =>
  adminRequest(server, 'PUT', `/services/shop/configs/${key}`, { value });

describe('sync', () => {
  it('syncs once, then a reload with the stored ETag gets 304 and keeps the values', async () => {
    const storage = new MemoryStorage();
    const first = client({ lastKnownGood: lastKnownGood({ storage }), stream: false });
    await first.start();
    expect(first.config('db.pool.max')).toBe(10);
    expect(first.flag('new-checkout')).toBe(true);
    expect(first.flag('beta')).toBe(false);
    expect(first.status).toMatchObject({ ready: true, stale: false, mode: 'polling' });
    expect(net.sent.map((r) => r.status)).toEqual([200]);
    first.close();

    const second = client({ lastKnownGood: lastKnownGood({ storage }), stream: false });
    // Values from storage before any request, marked stale until the service confirms them.
    expect(second.config('db.pool.max')).toBe(10);
    expect(second.status.stale).toBe(true);
    await second.start();
    expect(net.sent.map((r) => r.status)).toEqual([200, 304]);
    expect(net.sent[1]!.headers['if-none-match']).toBeDefined();
    expect(second.status.stale).toBe(false);
  });

  it('sends the key in its header only, never in a URL', async () => {
    const c = client();
    await c.start();
    await connected(c);
    for (const request of net.sent) {
      expect(request.headers['x-service-api-key']).toBe(TEST_KEYS.shopPublic);
      expect(request.path).not.toContain('svp_');
    }
    expect(proxy.requests.every((r) => !r.line.includes('svp_'))).toBe(true);
  });
});

describe('stream', () => {
  it('applies live changes: one update per revision, per-key listeners with old and new values', async () => {
    const c = client();
    await c.start();
    await connected(c);
    const seen: unknown[] = [];
    c.onConfig('db.pool.max', (newValue, oldValue) => seen.push([newValue, oldValue]));
    const update = waitForEvent<VaneUpdate>(
      (l) => c.subscribe(l),
      (u) => u.configs.includes('db.pool.max'),
      { timeoutMs: 10_000 },
    );
    await setConfig('db.pool.max', 30);
    expect((await update).configs).toEqual(['db.pool.max']);
    expect(c.config('db.pool.max')).toBe(30);
    expect(seen).toEqual([[30, 10]]);
  });

  it('honours goaway: reconnects after the delay asked, not counted as a failure', async () => {
    let goaways = 0;
    proxy.onRequest((line) =>
      line.startsWith('GET /v1/stream') && goaways++ === 0
        ? rawResponse(200, 'event: goaway\ndata: {"reconnect_in_ms":0}\n\n', { 'content-type': 'text/event-stream' })
        : undefined,
    );
    // A failure would wait a minute before the next attempt: only a goaway reconnects at once.
    const c = client({ backoffMinMs: 60_000, backoffMaxMs: 60_000 });
    await c.start();
    await until(() => net.count('/v1/stream') === 2 && c.status.connected, 'a second stream, connected', {
      timeoutMs: 10_000,
    });
    expect(c.status.error).toBeUndefined();
    expect(c.status.mode).toBe('stream');
    await setConfig('banner.text', 'after goaway');
    await until(() => c.config('banner.text') === 'after goaway', 'the change over the new stream', {
      timeoutMs: 10_000,
    });
  });

  it('falls back to polling after 3 stream failures, keeps serving, then returns to the stream', async () => {
    proxy.cutStreams(true);
    const c = client({ backoffMinMs: 5, backoffMaxMs: 20, ttlMs: 100, streamCooldownMs: 500 });
    await c.start();
    await until(() => c.status.mode === 'polling', 'the polling fallback', { timeoutMs: 10_000 });
    expect(c.status.connected).toBe(false);
    expect(net.count('/v1/stream')).toBeGreaterThanOrEqual(3);
    await setConfig('db.host', 'polled');
    await until(() => c.config('db.host') === 'polled', 'the change by polling', { timeoutMs: 10_000 });
    expect(c.status.stale).toBe(false);
    proxy.cutStreams(false);
    await until(() => c.status.mode === 'stream' && c.status.connected, 'the stream again', { timeoutMs: 10_000 });
  });

  it('pauses the stream while the page is hidden long, and catches up when it shows again', async () => {
    const document = new FakeDocument();
    const c = client({ document, hiddenPauseMs: 20 });
    await c.start();
    await connected(c);
    document.set('hidden');
    await until(() => c.status.mode === 'paused', 'paused', { timeoutMs: 10_000 });
    expect(c.status.connected).toBe(false);
    await setConfig('db.host', 'while hidden');
    expect(c.config('db.host')).toBe('localhost');
    document.set('visible');
    await until(() => c.config('db.host') === 'while hidden', 'the catch-up', { timeoutMs: 10_000 });
    await connected(c, 'the stream reopened');
  });
});

describe('service waits', () => {
  it('a 429 on the stream waits as long as Retry-After asks before the next attempt', async () => {
    let refused = 0;
    proxy.onRequest((line) =>
      line.startsWith('GET /v1/stream') && refused++ === 0
        ? rawResponse(429, '{"error":"rate_limited","message":"slow down"}', { 'retry-after': '1' })
        : undefined,
    );
    const c = client({ backoffMinMs: 5, backoffMaxMs: 20 });
    await c.start();
    await until(() => c.status.error?.code === 'VANE_RATE_LIMITED', 'the 429 seen', { timeoutMs: 10_000 });
    expect(c.status).toMatchObject({ connected: false, mode: 'polling' });
    await connected(c, 'the stream after the wait');
    const streams = net.sent.filter((r) => r.path === '/v1/stream');
    expect(streams.length).toBe(2);
    // Not the 5 ms backoff: the second attempt waited the second the service asked for.
    expect(streams[1]!.at - streams[0]!.at).toBeGreaterThanOrEqual(1000);
  });

  it('a 402 halts the background work and keeps serving the values', async () => {
    const c = client();
    await c.start();
    await connected(c);
    await adminRequest(server, 'PUT', '/tenant', { overdue_days: 30 });
    proxy.reset();
    await until(() => c.status.error?.code === 'VANE_BILLING_OVERDUE', 'the 402 seen', { timeoutMs: 10_000 });
    expect(c.status).toMatchObject({ connected: false, stale: true, mode: 'idle' });
    expect(c.config('db.pool.max')).toBe(10);
  });
});

describe('last-known-good', () => {
  it('a reload while the service is down shows the stored values, marked stale', async () => {
    const storage = new MemoryStorage();
    const first = client({ lastKnownGood: lastKnownGood({ storage }) });
    await first.start();
    await connected(first);
    await setConfig('banner.text', 'stored');
    await until(() => first.config('banner.text') === 'stored', 'the change', { timeoutMs: 10_000 });
    first.close();
    proxy.onRequest(() => 'reset');

    const reloaded = client({ lastKnownGood: lastKnownGood({ storage }), backoffMinMs: 5, backoffMaxMs: 20 });
    await reloaded.start();
    expect(reloaded.config('banner.text')).toBe('stored');
    expect(reloaded.status).toMatchObject({ ready: true, stale: true });
    expect(reloaded.status.error?.code).toBe('VANE_TRANSPORT');

    proxy.onRequest(undefined);
    await until(() => !reloaded.status.stale && reloaded.status.connected, 'caught up', { timeoutMs: 15_000 });
  });

  it('stores nothing but public data', async () => {
    const storage = new MemoryStorage();
    const c = client({ lastKnownGood: lastKnownGood({ storage }) });
    await c.start();
    const stored = [...storage.items.values()].join('');
    expect(stored).toContain('db.pool.max');
    for (const value of Object.values(TEST_SECRET_VALUES)) expect(stored).not.toContain(value);
  });

  it('keeps the copy under the key given, or under vane: and the origin; a client with a bootstrap starts from the bootstrap', async () => {
    const storage = new MemoryStorage();
    const named = client({ lastKnownGood: lastKnownGood({ storage, key: 'shop-copy' }) });
    await named.start();
    const plain = client({ lastKnownGood: lastKnownGood({ storage }), stream: false });
    await plain.start();
    expect([...storage.items.keys()].sort()).toEqual(['shop-copy', `vane:${new URL(proxy.baseUrl('shop')).origin}`]);
    // A bootstrap wins over the stored copy: not stale, and the copy is not read.
    const bootstrap = await createBootstrap({
      baseUrl: proxy.baseUrl('shop'),
      apiKey: TEST_KEYS.shopPublic,
      fetch: net.fetch,
    });
    storage.items.set('shop-copy', '{"not":"a bootstrap"}');
    const booted = client({ bootstrap, lastKnownGood: lastKnownGood({ storage, key: 'shop-copy' }) });
    expect(booted.status).toMatchObject({ ready: true, stale: false, revision: bootstrap.revision });
  });

  it('where reading localStorage throws (blocked cookies, a sandboxed frame), the plug-in keeps no copy and the client works', async () => {
    const own = Object.getOwnPropertyDescriptor(globalThis, 'localStorage');
    Object.defineProperty(globalThis, 'localStorage', {
      configurable: true,
      get: () => {
        throw new Error('SecurityError: the operation is insecure');
      },
    });
    try {
      const c = client({ lastKnownGood: lastKnownGood(), stream: false });
      await c.start();
      expect(c.config('db.pool.max')).toBe(10);
    } finally {
      if (own) Object.defineProperty(globalThis, 'localStorage', own);
      else delete (globalThis as { localStorage?: unknown }).localStorage;
    }
  });

  it('without storage and without the service, start() rejects and the client retries in the background', async () => {
    proxy.onRequest(() => 'reset');
    const c = client({ backoffMinMs: 5, backoffMaxMs: 20, ttlMs: 50, streamCooldownMs: 100 });
    await expect(c.start()).rejects.toMatchObject({ code: 'VANE_TRANSPORT' });
    expect(c.status.ready).toBe(false);
    proxy.onRequest(undefined);
    await until(() => c.status.ready && c.config('db.pool.max') === 10, 'values once the service answers', {
      timeoutMs: 15_000,
    });
  });
});

describe('secrets', () => {
  it('refuses every secret read and write before any request, with the client codes', async () => {
    const c = client();
    for (const read of [
      () => c.secret('stripe.api_key'),
      () => c.secretFile('tls.client_pem'),
      () => c.secretInfo('stripe.api_key'),
      () => c.requireSecret('stripe.api_key'),
      () => c.requireSecretFile('tls.client_pem'),
    ])
      expect(read).toThrow(expect.objectContaining({ code: 'VANE_PUBLIC_KEY_SECRET_ACCESS' }));
    await expect(c.setSecret('stripe.api_key', 'x')).rejects.toMatchObject({ code: 'VANE_PUBLIC_KEY_SECRET_ACCESS' });
    await expect(c.deleteSecret('stripe.api_key')).rejects.toMatchObject({ code: 'VANE_PUBLIC_KEY_SECRET_ACCESS' });
    await expect(c.deleteSecretVersion('tls.client_pem', 1)).rejects.toMatchObject({
      code: 'VANE_PUBLIC_KEY_SECRET_ACCESS',
    });
    expect(net.sent).toEqual([]);
    expect(proxy.requests).toEqual([]);
  });

  it('refuses a secret key outright, before any request', () => {
    expect(() => client({ apiKey: TEST_KEYS.shopSecret })).toThrow(
      expect.objectContaining({ code: 'VANE_SECRET_KEY_IN_BROWSER' }),
    );
    expect(() => client({ apiKey: 'not-a-key' })).toThrow(expect.objectContaining({ code: 'VANE_INVALID_ARGUMENT' }));
    expect(net.sent).toEqual([]);
  });

  it('a frontend service serves no secret, whatever the key', async () => {
    for (const key of [TEST_KEYS.webPublic, TEST_KEYS.webSecret]) {
      const res = await net.fetch(`${proxy.baseUrl('web')}/v1/sync`, { headers: { 'x-service-api-key': key } });
      const text = await res.text();
      expect(res.status).toBe(200);
      expect(JSON.parse(text)).not.toHaveProperty('secrets');
      expect(text).not.toContain(TEST_SECRET_VALUES.hidden);
    }
    const storage = new MemoryStorage();
    const web = client({
      baseUrl: proxy.baseUrl('web'),
      apiKey: TEST_KEYS.webPublic,
      lastKnownGood: lastKnownGood({ storage }),
    });
    await web.start();
    expect(web.config('ui.theme')).toBe('dark');
    const bootstrap = await createBootstrap({
      baseUrl: proxy.baseUrl('web'),
      apiKey: TEST_KEYS.webPublic,
      fetch: net.fetch,
    });
    for (const copy of [JSON.stringify(bootstrap), ...storage.items.values()]) {
      expect(copy).toContain('ui.theme');
      expect(copy).not.toContain(TEST_SECRET_VALUES.hidden);
    }
  });
});

describe('A/B', () => {
  const GERMAN = { userId: 'u-1', attributes: { country: 'DE' } };

  it('answers for the page user, one request per flag, user, attributes and revision', async () => {
    const c = client({ user: GERMAN, ab: abTesting(), stream: false });
    await c.start();
    expect(c.abFlag('new-pricing')).toBe(false);
    await waitForEvent<VaneUpdate>(
      (l) => c.subscribe(l),
      (u) => u.ab,
      { timeoutMs: 10_000 },
    );
    expect(c.abFlag('new-pricing')).toBe(true);
    expect(await c.evaluateAb(['new-pricing'], { userId: 'u-2', attributes: { country: 'US' } })).toEqual({
      'new-pricing': false,
    });
    const calls = net.count('/v1/flags/evaluate-ab');
    expect(await c.evaluateAb(['new-pricing', 'unknown-flag'])).toEqual({ 'new-pricing': true, 'unknown-flag': false });
    expect(net.count('/v1/flags/evaluate-ab')).toBe(calls);
  });

  it('refuses a non-string attribute before any request, naming it', async () => {
    const c = client({ ab: abTesting() });
    await expect(
      c.evaluateAb(['new-pricing'], { userId: 'u-1', attributes: { age: 42 as unknown as string } }),
    ).rejects.toMatchObject({ code: 'VANE_INVALID_ARGUMENT', message: expect.stringContaining('"age"') });
    expect(net.sent).toEqual([]);
  });

  it('without the A/B plug-in, its methods and the user option are refused, naming the plug-in', async () => {
    const c = client();
    expect(() => c.abFlag('new-pricing')).toThrow(
      expect.objectContaining({ code: 'VANE_INVALID_ARGUMENT', message: expect.stringContaining('@vane/browser/ab') }),
    );
    expect(() => c.setUser(GERMAN)).toThrow(expect.objectContaining({ code: 'VANE_INVALID_ARGUMENT' }));
    await expect(c.evaluateAb(['new-pricing'])).rejects.toMatchObject({ code: 'VANE_INVALID_ARGUMENT' });
    expect(() => client({ user: GERMAN })).toThrow(
      expect.objectContaining({ message: expect.stringContaining('user needs the A/B plug-in') }),
    );
    expect(net.sent).toEqual([]);
  });
});

describe('bootstrap', () => {
  it('a client from a bootstrap serves at once and goes live with no sync', async () => {
    const bootstrap = await createBootstrap({
      baseUrl: proxy.baseUrl('shop'),
      apiKey: TEST_KEYS.shopPublic,
      fetch: net.fetch,
      user: { userId: 'u-1', attributes: { country: 'DE' } },
      abKeys: ['new-pricing'],
    });
    const json = JSON.parse(JSON.stringify(bootstrap)) as unknown;
    expect(parseBootstrap(json)).toEqual(bootstrap);
    expect(bootstrap.ab?.results).toEqual({ 'new-pricing': true });
    const before = net.sent.length;

    const c = client({ bootstrap: parseBootstrap(json), ab: abTesting() });
    expect(c.flag('new-checkout')).toBe(true);
    expect(c.abFlag('new-pricing')).toBe(true);
    expect(c.status).toMatchObject({ ready: true, stale: false, revision: bootstrap.revision });
    await c.start();
    await connected(c);
    expect(net.sent.slice(before).map((r) => r.path)).toEqual(['/v1/stream']);
    await setConfig('db.host', 'live');
    await until(() => c.config('db.host') === 'live', 'live after the bootstrap', { timeoutMs: 10_000 });
  });

  it('a bootstrap from a secret-key client holds no secret', async () => {
    const secretClient = await VaneClient.create({
      baseUrl: proxy.baseUrl('shop'),
      apiKey: TEST_KEYS.shopSecret,
      stream: false,
    });
    try {
      const bootstrap = await createBrowserBootstrap(secretClient, {
        user: { userId: 'u-1', attributes: { country: 'DE' } },
        abKeys: ['new-pricing'],
      });
      const text = JSON.stringify(bootstrap);
      for (const value of Object.values(TEST_SECRET_VALUES)) expect(text).not.toContain(value);
      expect(text).not.toContain('stripe.api_key');
      expect(bootstrap).toMatchObject({ v: 1, etag: null, ab: { results: { 'new-pricing': true } } });
      const c = client({ bootstrap });
      expect(c.config('db.pool.max')).toBe(10);
    } finally {
      await secretClient.close();
    }
  });

  it('both producers make bootstraps of plain objects throughout, and A/B answers are plain (Next.js refuses others as props)', async () => {
    /** The paths of every object in `value` whose prototype is neither Object's nor Array's. */
    const notPlain = (value: unknown, path = '$'): string[] => {
      if (typeof value !== 'object' || value === null) return [];
      const proto: unknown = Object.getPrototypeOf(value);
      const own = proto === Object.prototype || proto === Array.prototype ? [] : [path];
      return own.concat(...Object.entries(value).map(([key, inner]) => notPlain(inner, `${path}.${key}`)));
    };
    // An attribute named __proto__ (as JSON.parse makes it) stays an own member all the way.
    const user = {
      userId: 'u-1',
      attributes: JSON.parse('{"__proto__":"x","country":"DE"}') as Record<string, string>,
    };
    const fromPublic = await createBootstrap({
      baseUrl: proxy.baseUrl('shop'),
      apiKey: TEST_KEYS.shopPublic,
      fetch: net.fetch,
      user,
      abKeys: ['new-pricing'],
    });
    const secretClient = await VaneClient.create({
      baseUrl: proxy.baseUrl('shop'),
      apiKey: TEST_KEYS.shopSecret,
      stream: false,
    });
    try {
      const fromSecret = await createBrowserBootstrap(secretClient, { user, abKeys: ['new-pricing'] });
      const c = client({ bootstrap: fromPublic, user, ab: abTesting() });
      const answers = await c.evaluateAb(['new-pricing']);
      for (const made of [fromPublic, fromSecret, answers]) {
        expect(notPlain(made)).toEqual([]);
        expect(structuredClone(made)).toEqual(made);
      }
      for (const made of [fromPublic, fromSecret])
        expect(Object.getOwnPropertyDescriptor(made.ab!.attributes, '__proto__')?.value).toBe('x');
    } finally {
      await secretClient.close();
    }
  });

  it("a bootstrap's A/B answers are the A/B plug-in's to check, before any request", async () => {
    const bootstrap = await createBootstrap({
      baseUrl: proxy.baseUrl('shop'),
      apiKey: TEST_KEYS.shopPublic,
      fetch: net.fetch,
    });
    const before = net.sent.length;
    const badAb = { ...bootstrap, ab: { userId: 'u-1', attributes: {}, results: { 'new-pricing': 'yes' } } };
    expect(() => client({ bootstrap: badAb as unknown as VaneBootstrap, ab: abTesting() })).toThrow(
      expect.objectContaining({
        code: 'VANE_INVALID_ARGUMENT',
        message: expect.stringContaining('bootstrap.ab.results'),
      }),
    );
    // Without the plug-in the answers are not read: the state serves.
    expect(client({ bootstrap: badAb as unknown as VaneBootstrap }).flag('new-checkout')).toBe(true);
    expect(net.sent.length).toBe(before);
  });

  it('refuses a bootstrap that carries secrets', () => {
    const bad = {
      v: 1,
      etag: null,
      revision: 1,
      snapshot: { service: { slug: 's', kind: 'backend' }, revision: 1, secrets: {} },
    };
    expect(() => parseBootstrap(bad)).toThrow(expect.objectContaining({ code: 'VANE_INVALID_ARGUMENT' }));
  });
});

describe('shared stream', () => {
  // Clients of one base URL and key sharing a stream, with a fake lock manager and channels (fake-share.ts).
  let locks: FakeLocks;
  let channels: FakeChannels;
  let share: VaneShare;

  beforeEach(() => {
    locks = new FakeLocks();
    channels = new FakeChannels();
    share = { locks, channel: (name) => channels.channel(name) };
  });

  const shared = (options: Partial<VaneBrowserOptions> = {}): VaneBrowserClient =>
    client({ share: sharedStream(share), backoffMinMs: 5, backoffMaxMs: 20, ...options });

  const streamsHeld = (count: number): Promise<void> =>
    until(() => server.stats().streams === count, `${count} stream(s) held by the server`, { timeoutMs: 10_000 });

  /** The updates a client emits for a config key (each names the revision it brought). */
  function revisionsOf(c: VaneBrowserClient, key: string): number[] {
    const seen: number[] = [];
    c.subscribe((update: VaneUpdate) => update.configs.includes(key) && seen.push(update.revision));
    return seen;
  }

  it('three clients of one base URL and key hold one stream; each sees a change in one update', async () => {
    const [a, b, c] = [shared(), shared(), shared()];
    await Promise.all([a.start(), b.start(), c.start()]);
    await until(() => [a, b, c].every((each) => each.status.connected), 'all connected', { timeoutMs: 10_000 });
    const seen = [a, b, c].map((each) => revisionsOf(each, 'db.host'));
    await streamsHeld(1);
    // One sync and one stream for the three: the followers took the holder's state.
    expect(net.count('/v1/stream')).toBe(1);
    expect(net.count('/v1/sync')).toBe(1);
    await setConfig('db.host', 'shared');
    await until(() => [a, b, c].every((each) => each.config('db.host') === 'shared'), 'the change in every client', {
      timeoutMs: 10_000,
    });
    const revision = a.status.revision;
    expect([b.status.revision, c.status.revision]).toEqual([revision, revision]);
    expect(seen).toEqual([[revision], [revision], [revision]]);
    expect(server.stats().streams).toBe(1);
  });

  it('with the storage plug-in, the holder alone writes the copy: one write per revision for every client', async () => {
    const storage = new MemoryStorage();
    const writes: number[] = [];
    const setItem = storage.setItem.bind(storage);
    storage.setItem = (key, value) => {
      writes.push((JSON.parse(value) as { revision: number }).revision);
      setItem(key, value);
    };
    const [a, b, c] = [0, 1, 2].map(() => shared({ lastKnownGood: lastKnownGood({ storage }) }));
    await Promise.all([a!.start(), b!.start(), c!.start()]);
    await until(() => [a!, b!, c!].every((each) => each.status.connected), 'all connected', { timeoutMs: 10_000 });
    await setConfig('db.host', 'stored once');
    await until(() => [a!, b!, c!].every((each) => each.config('db.host') === 'stored once'), 'the change in all', {
      timeoutMs: 10_000,
    });
    await until(() => writes.includes(a!.status.revision), 'the new revision stored', { timeoutMs: 10_000 });
    expect(writes).toEqual([...new Set(writes)]);
    expect(writes).toHaveLength(2);
  });

  it('the lock and channel names are a hash of base URL and key, never the key', async () => {
    const c = shared();
    await c.start();
    const [name] = [...locks.names];
    expect(name).toBe(shareName(new URL(proxy.baseUrl('shop')).href, TEST_KEYS.shopPublic));
    expect(name).toMatch(/^vane:[0-9a-z]+$/);
    expect(name).not.toContain(TEST_KEYS.shopPublic);
    expect(name).not.toContain(TEST_KEYS.shopPublic.slice(-8));
    // Another key or another base URL: another name.
    expect(shareName(new URL(proxy.baseUrl('shop')).href, `${TEST_KEYS.shopPublic}x`)).not.toBe(name);
    expect(shareName(new URL(proxy.baseUrl('web')).href, TEST_KEYS.shopPublic)).not.toBe(name);
  });

  it('the holder closes: the lock passes to a follower, which catches up with Last-Event-ID', async () => {
    const holder = shared();
    await holder.start();
    const follower = shared();
    await follower.start();
    await until(() => follower.status.connected, 'the follower connected through the holder', { timeoutMs: 10_000 });
    const revision = follower.status.revision;
    holder.close();
    // A change while no stream is held: the new holder's stream replays it.
    await setConfig('db.host', 'during handover');
    await until(() => follower.config('db.host') === 'during handover', 'the catch-up', { timeoutMs: 10_000 });
    await until(() => follower.status.connected && follower.status.mode === 'stream', 'the new holder streaming', {
      timeoutMs: 10_000,
    });
    const streams = net.sent.filter((r) => r.path === '/v1/stream');
    expect(streams).toHaveLength(2);
    expect(streams[1]!.headers['last-event-id']).toBe(String(revision));
    await streamsHeld(1);
  });

  it('a follower is disconnected and stale when the holder is, and live again with it', async () => {
    const holder = shared({ ttlMs: 50, streamCooldownMs: 200 });
    const follower = shared();
    await Promise.all([holder.start(), follower.start()]);
    await until(() => follower.status.connected, 'connected', { timeoutMs: 10_000 });
    // The service unreachable for the holder: its stream and every request reset.
    proxy.onRequest(() => 'reset');
    proxy.cutStreams(true);
    await until(() => holder.status.stale && !holder.status.connected, 'the holder stale', { timeoutMs: 10_000 });
    await until(() => follower.status.stale && !follower.status.connected, 'the follower stale', { timeoutMs: 10_000 });
    expect(follower.status.mode).toBe(holder.status.mode);
    // Reachable again: the holder's stream (or poll) confirms the values, and the follower hears it.
    await setConfig('db.host', 'after the outage');
    proxy.onRequest(undefined);
    proxy.cutStreams(false);
    await until(() => follower.config('db.host') === 'after the outage', 'the change in the follower', {
      timeoutMs: 10_000,
    });
    await until(() => !follower.status.stale && follower.status.connected, 'the follower live', { timeoutMs: 10_000 });
  });

  it('a page hidden long hands the stream over (the others stay live), and catches up through the holder when shown', async () => {
    const hidden = new FakeDocument();
    const first = shared({ document: hidden, hiddenPauseMs: 20 });
    await first.start();
    const [second, third] = [shared(), shared()];
    await Promise.all([second.start(), third.start()]);
    await until(() => second.status.connected && third.status.connected, 'connected', { timeoutMs: 10_000 });
    hidden.set('hidden');
    await until(() => first.status.mode === 'paused', 'the hidden one paused', { timeoutMs: 10_000 });
    await until(() => second.status.mode === 'stream' && second.status.connected, 'the next holder streaming', {
      timeoutMs: 10_000,
    });
    await setConfig('db.host', 'while hidden');
    await until(
      () => second.config('db.host') === 'while hidden' && third.config('db.host') === 'while hidden',
      'the change in both visible ones',
      { timeoutMs: 10_000 },
    );
    // The pause was the hidden page's own: the other follower never took it.
    expect(third.status).toMatchObject({ connected: true, mode: 'stream', stale: false });
    expect(first.config('db.host')).toBe('localhost');
    hidden.set('visible');
    await until(() => first.config('db.host') === 'while hidden', 'the catch-up when shown', { timeoutMs: 10_000 });
    await until(() => first.status.connected, 'connected again, through the holder', { timeoutMs: 10_000 });
    await streamsHeld(1);
  });

  it('A/B answers stay per client: each asks for its own user', async () => {
    const [a, b] = [
      shared({ user: { userId: 'u-1' }, ab: abTesting() }),
      shared({ user: { userId: 'u-2' }, ab: abTesting() }),
    ];
    await Promise.all([a.start(), b.start()]);
    await Promise.all([a.evaluateAb(['new-checkout']), b.evaluateAb(['new-checkout'])]);
    const users = proxy.requests
      .filter((r) => r.path === '/v1/flags/evaluate-ab')
      .map((r) => (JSON.parse(r.body.toString()) as { user_id: string }).user_id);
    expect(users.sort()).toEqual(['u-1', 'u-2']);
  });

  it('without the plug-in, or without navigator.locks (as in Node 20 or React Native), each client streams on its own', async () => {
    // Node 24 has navigator.locks: hide it, as a runtime without the Web Locks API has none.
    const navigator = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
    Object.defineProperty(globalThis, 'navigator', { value: undefined, configurable: true, writable: true });
    try {
      const [a, b, c] = [
        shared({ share: undefined }),
        shared({ share: sharedStream() }),
        shared({ share: sharedStream() }),
      ];
      await Promise.all([a.start(), b.start(), c.start()]);
      await until(() => [a, b, c].every((each) => each.status.connected), 'all connected', { timeoutMs: 10_000 });
      await streamsHeld(3);
      expect(locks.names.size).toBe(0);
      expect(channels.posted).toEqual([]);
    } finally {
      if (navigator) Object.defineProperty(globalThis, 'navigator', navigator);
      else delete (globalThis as { navigator?: unknown }).navigator;
    }
  });
});

describe('README', () => {
  it('quick start', async () => {
    const storage = new MemoryStorage();
    const seen: unknown[] = [];
    const render = (...args: unknown[]): number => seen.push(args);
    // The page's own fetch: in Node, one that resolves shop.localhost as browsers do.
    const pageFetch = globalThis.fetch;
    globalThis.fetch = net.fetch;
    try {
      const baseUrl = proxy.baseUrl('shop');
      const apiKey = TEST_KEYS.shopPublic;
      // #region quick-start
      const vane = new VaneBrowserClient({
        baseUrl, // https://shop.vane.example, or http://shop.localhost:4400 locally
        apiKey, // a public key (svp_…); a secret key (svs_…) is refused
        user: { userId: 'u-8812', attributes: { country: 'DE' } }, // the page's user, for A/B answers
        ab: abTesting(), // plug-in: A/B answers for the user (import { abTesting } from '@vane/browser/ab')
        lastKnownGood: lastKnownGood({ storage }), // plug-in: a copy in localStorage by default (@vane/browser/storage)
      });
      await vane.start(); // resolves once values are held
      vane.flag('new-checkout'); // boolean: is_active, computed by the server
      vane.config('banner.text', 'Welcome'); // a config value, or the default when absent
      vane.abFlag('new-pricing'); // the A/B answer for the user (the default until known)
      const off = vane.subscribe((update) => render(update.revision, update.flags, update.configs));
      // #endregion quick-start
      clients.push(vane);
      expect(vane.flag('new-checkout')).toBe(true);
      expect(vane.config('banner.text', 'Welcome')).toBeNull();
      await until(() => vane.abFlag('new-pricing'), 'the A/B answer', { timeoutMs: 10_000 });
      expect(seen.length).toBeGreaterThan(0);
      off();
    } finally {
      globalThis.fetch = pageFetch;
    }
  });
});
