import { once } from 'node:events';
import { connect } from 'node:net';
import { ManualClock, startVaneServer, type VaneServer } from '../src/index.js';
import { call, openStream, type StreamReader } from './support/http-client.js';
import { DEFAULT_WAIT_MS, TEST_KEYS, testSeed, withTimeout } from '../src/testing/index.js';

/** RFC 3339 in UTC with milliseconds, as `committed_at` is (PROTOCOL §6). */
const RFC3339_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Event `n`; a patch's `committed_at` is checked for its form and left out of `json`. */
const data = (reader: StreamReader, n: number) =>
  reader.event(n).then((e) => {
    const { committed_at: committedAt, ...json } = JSON.parse(e.data) as Record<string, unknown>;
    if (e.event === 'patch') expect(committedAt).toMatch(RFC3339_MS);
    else expect(committedAt).toBeUndefined();
    return { ...e, json };
  });

describe('GET /v1/stream', () => {
  let server: VaneServer;
  const readers: StreamReader[] = [];
  const open = async (spec: Parameters<typeof openStream>[1]) => {
    const reader = await openStream(server, spec);
    readers.push(reader);
    return reader;
  };

  beforeEach(async () => {
    server = await startVaneServer({ seed: testSeed(), pingIntervalMs: 20 });
  });
  afterEach(async () => {
    readers.splice(0).forEach((r) => r.close());
    await server.close();
  });

  it('opens with text/event-stream and sends resync with the revision first', async () => {
    const reader = await open({ slug: 'shop', key: TEST_KEYS.shopSecret });
    expect(reader.status).toBe(200);
    expect(reader.headers['content-type']).toBe('text/event-stream');
    expect(reader.headers['cache-control']).toBe('no-cache');
    const first = await data(reader, 1);
    expect(first).toMatchObject({ event: 'resync', id: '1', json: { revision: 1 } });
  });

  it('frames the body by the connection: no chunked encoding, each event on the wire as is, the end at the close', async () => {
    const socket = connect({ host: '127.0.0.1', port: server.port });
    let wire = '';
    socket.setEncoding('latin1');
    socket.on('data', (text: string) => (wire += text));
    const ended = once(socket, 'end');
    socket.write(
      `GET /v1/stream HTTP/1.1\r\nhost: shop.localhost:${server.port}\r\nx-service-api-key: ${TEST_KEYS.shopSecret}\r\n\r\n`,
    );
    // Each wait is on what reached the wire; `: ping` comments (every 20 ms here) may come between any two events.
    const has = (pattern: RegExp) =>
      withTimeout(
        new Promise<void>((resolve) => {
          const check = (): void => {
            if (!pattern.test(wire)) return;
            socket.off('data', check);
            resolve();
          };
          socket.on('data', check);
          check();
        }),
        `${String(pattern)} on the wire`,
      );
    await has(/data: \{"revision":1\}\n\n/);
    server.admin.setConfig('shop', 'db.pool.max', 30);
    // The patch whole: its data line and the blank line that ends it.
    await has(/event: patch\ndata: [^\n]*\n\n/);
    const [head, body] = wire.split('\r\n\r\n') as [string, string];
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(head.toLowerCase()).not.toContain('transfer-encoding');
    expect(head.toLowerCase()).toContain('connection: close');
    expect(body.replace(/^: ping\n\n/gm, '')).toMatch(
      /^id: 1\nevent: resync\ndata: \{"revision":1\}\n\nid: 2\nevent: patch\ndata: \{"base":1,"revision":2,[^\n]*\}\n\n$/,
    );
    await server.close();
    await withTimeout(ended, 'the stream to end');
    socket.destroy();
  });

  it("stamps every patch with committed_at: the server's clock when the change was committed, in ms", async () => {
    const clock = new ManualClock(Date.parse('2026-11-24T10:00:00.000Z'));
    const timed = await startVaneServer({ seed: testSeed(), clock });
    try {
      const reader = await openStream(timed, { slug: 'shop', key: TEST_KEYS.shopSecret });
      readers.push(reader);
      await reader.event(1);
      clock.advance(123);
      timed.admin.setConfig('shop', 'db.pool.max', 31);
      clock.advance(1000);
      timed.admin.deleteConfig('shop', 'banner.text');
      const times = [2, 3].map(
        async (n) => (JSON.parse((await reader.event(n)).data) as { committed_at: string }).committed_at,
      );
      expect(await Promise.all(times)).toEqual(['2026-11-24T10:00:00.123Z', '2026-11-24T10:00:01.123Z']);
    } finally {
      readers.splice(0).forEach((r) => r.close());
      await timed.close();
    }
  });

  it('answers auth, slug and billing errors with their statuses before any event', async () => {
    expect((await open({ slug: 'shop', key: 'svs_wrong' })).status).toBe(401);
    expect((await open({ slug: 'nope', key: TEST_KEYS.shopSecret })).status).toBe(404);
    server.admin.setTenant({ overdue_days: 15 });
    expect((await open({ slug: 'shop', key: TEST_KEYS.shopSecret })).status).toBe(402);
  });

  it('pushes an admin change as a patch with base and revision, at once', async () => {
    const reader = await open({ slug: 'shop', key: TEST_KEYS.shopSecret });
    await reader.event(1);
    server.admin.setConfig('shop', 'db.pool.max', 30);
    server.admin.deleteConfig('shop', 'banner.text');
    server.admin.setFlag('shop', 'beta', { is_enabled: true });
    const first = await data(reader, 2);
    expect(first).toMatchObject({
      event: 'patch',
      id: '2',
      json: { base: 1, revision: 2, configs: { 'db.pool.max': 30 } },
    });
    expect((await data(reader, 3)).json).toEqual({ base: 2, revision: 3, deleted: { configs: ['banner.text'] } });
    expect((await data(reader, 4)).json).toEqual({
      base: 3,
      revision: 4,
      flags: { beta: { is_enabled: true, starts_at: null, ends_at: null, is_active: true } },
    });
  });

  it('sends a public key every revision with secrets stripped, so its chain stays whole', async () => {
    const pub = await open({ slug: 'shop', key: TEST_KEYS.shopPublic });
    const sec = await open({ slug: 'shop', key: TEST_KEYS.shopSecret });
    await pub.event(1);
    await sec.event(1);
    server.admin.setSecret('shop', 'stripe.api_key', 'rk_test_456');
    server.admin.deleteSecret('shop', 'tls.client_pem');
    expect((await data(sec, 2)).json).toEqual({
      base: 1,
      revision: 2,
      secrets: { 'stripe.api_key': { type: 'text', value: 'rk_test_456', version: 2 } },
    });
    expect((await data(sec, 3)).json).toEqual({ base: 2, revision: 3, deleted: { secrets: ['tls.client_pem'] } });
    expect((await data(pub, 2)).json).toEqual({ base: 1, revision: 2 });
    expect((await data(pub, 3)).json).toEqual({ base: 2, revision: 3 });
    expect(pub.events.map((e) => e.data).join('')).not.toContain('rk_test');
  });

  it('turns secrets off and on for secret keys when the service kind changes', async () => {
    const sec = await open({ slug: 'shop', key: TEST_KEYS.shopSecret });
    await sec.event(1);
    server.admin.putService('shop', { kind: 'frontend' });
    expect((await data(sec, 2)).json).toEqual({
      base: 1,
      revision: 2,
      service: { slug: 'shop', kind: 'frontend' },
      deleted: { secrets: ['stripe.api_key', 'tls.client_pem'] },
    });
    server.admin.putService('shop', { kind: 'backend' });
    expect((await data(sec, 3)).json).toMatchObject({
      service: { slug: 'shop', kind: 'backend' },
      secrets: { 'stripe.api_key': { value: 'rk_test_123' }, 'tls.client_pem': { value: 'pem-v2' } },
    });
  });

  it('sends ": ping" keep-alives at the configured interval', async () => {
    const reader = await open({ slug: 'shop', key: TEST_KEYS.shopSecret });
    await reader.until((r) => r.pings >= 2, 'two pings');
    expect(reader.pings).toBeGreaterThanOrEqual(2);
  });

  it('answers Last-Event-ID with resync at that revision first (PROTOCOL §6), then the patches after it', async () => {
    server.admin.setConfig('shop', 'db.host', 'a'); // 2
    server.admin.setConfig('shop', 'db.host', 'b'); // 3
    server.admin.setConfig('shop', 'db.host', 'c'); // 4
    const reader = await open({ slug: 'shop', key: TEST_KEYS.shopSecret, lastEventId: 2 });
    expect(await data(reader, 1)).toMatchObject({ event: 'resync', id: '2', json: { revision: 2 } });
    expect(await data(reader, 2)).toMatchObject({
      event: 'patch',
      id: '3',
      json: { base: 2, revision: 3, configs: { 'db.host': 'b' } },
    });
    expect((await data(reader, 3)).json).toEqual({ base: 3, revision: 4, configs: { 'db.host': 'c' } });
  });

  it('sends resync at the current revision instead of a replay larger than the slow-consumer bound', async () => {
    await server.close();
    server = await startVaneServer({ seed: testSeed(), streamBufferBytes: 64 * 1024 });
    const big = 'x'.repeat(40 * 1024);
    server.admin.setConfig('shop', 'blob.value', `${big}1`); // 2
    server.admin.setConfig('shop', 'blob.value', `${big}2`); // 3: two patches of 40 KiB do not fit 64 KiB
    server.admin.setConfig('shop', 'db.host', 'small'); // 4
    const whole = await open({ slug: 'shop', key: TEST_KEYS.shopSecret, lastEventId: 1 });
    expect(await data(whole, 1)).toMatchObject({ event: 'resync', json: { revision: 4 } });
    const fits = await open({ slug: 'shop', key: TEST_KEYS.shopSecret, lastEventId: 3 });
    expect(await data(fits, 1)).toMatchObject({ event: 'resync', json: { revision: 3 } });
    expect((await data(fits, 2)).json).toEqual({ base: 3, revision: 4, configs: { 'db.host': 'small' } });
    server.admin.setConfig('shop', 'db.host', 'after'); // 5: the next event of both, so nothing was replayed to `whole`
    expect((await data(whole, 2)).json).toEqual({ base: 4, revision: 5, configs: { 'db.host': 'after' } });
    expect((await data(fits, 3)).json).toEqual({ base: 4, revision: 5, configs: { 'db.host': 'after' } });
  });

  it.each([
    ['older than the history', 1, { historySize: 2 }],
    ['ahead of the server', 99, {}],
    ['not a number', 'abc', {}],
  ])('sends resync alone when Last-Event-ID is %s', async (_name, lastEventId, options) => {
    await server.close();
    server = await startVaneServer({ seed: testSeed(), ...options });
    for (const host of ['a', 'b', 'c']) server.admin.setConfig('shop', 'db.host', host);
    const reader = await open({ slug: 'shop', key: TEST_KEYS.shopSecret, lastEventId });
    const first = await data(reader, 1);
    expect(first).toMatchObject({ event: 'resync', json: { revision: 4 } });
  });

  describe('replay history bounded by bytes (historyBytes)', () => {
    const MiB = 1024 * 1024;

    it('keeps many rewrites of a 900 KB config within the default bound, twice streamBufferBytes', async () => {
      const big = 'x'.repeat(900 * 1024);
      for (let i = 0; i < 40; i++) server.admin.setConfig('shop', 'blob.value', `${big}${i}`);
      await server.settled();
      const { historyBytes } = server.stats();
      // The newest patch (900 KB for secret keys and again for public keys) is kept, nothing older fits beside it.
      expect(historyBytes).toBeGreaterThan(2 * 900 * 1024);
      expect(historyBytes).toBeLessThanOrEqual(2 * MiB);

      // By count alone (the bound before), the same rewrites are all kept: the bytes were what grew.
      await server.close();
      server = await startVaneServer({ seed: testSeed(), historyBytes: Number.POSITIVE_INFINITY });
      for (let i = 0; i < 6; i++) server.admin.setConfig('shop', 'blob.value', `${big}${i}`);
      await server.settled();
      expect(server.stats().historyBytes).toBeGreaterThan(6 * 2 * 900 * 1024);
    }, 20_000); // 46 rewrites of 900 KB, each rendered twice: seconds of CPU on a loaded machine

    it('drops the oldest patches first; a Last-Event-ID that went with them gets resync, a newer one its replay', async () => {
      await server.close();
      server = await startVaneServer({ seed: testSeed(), historyBytes: 1000 });
      for (let i = 0; i < 20; i++) server.admin.setConfig('shop', 'db.host', `host-${i}`); // revisions 2 to 21
      await server.settled();
      expect(server.stats().historyBytes).toBeGreaterThan(0);
      expect(server.stats().historyBytes).toBeLessThanOrEqual(1000);

      const fellOut = await open({ slug: 'shop', key: TEST_KEYS.shopSecret, lastEventId: 2 });
      expect(await data(fellOut, 1)).toMatchObject({ event: 'resync', json: { revision: 21 } });
      const recent = await open({ slug: 'shop', key: TEST_KEYS.shopSecret, lastEventId: 20 });
      expect(await data(recent, 1)).toMatchObject({ event: 'resync', json: { revision: 20 } });
      expect((await data(recent, 2)).json).toEqual({ base: 20, revision: 21, configs: { 'db.host': 'host-19' } });
    });

    it('keeps no patch larger than the bound, and refuses a bound that is not a number of bytes', async () => {
      await server.close();
      server = await startVaneServer({ seed: testSeed(), historyBytes: 100 });
      server.admin.setConfig('shop', 'db.host', 'y'.repeat(200));
      expect(server.stats().historyBytes).toBe(0);
      const reader = await open({ slug: 'shop', key: TEST_KEYS.shopSecret, lastEventId: 1 });
      expect(await data(reader, 1)).toMatchObject({ event: 'resync', json: { revision: 2 } });
      for (const historyBytes of [-1, Number.NaN]) {
        await expect(startVaneServer({ historyBytes })).rejects.toThrow(
          'historyBytes must be a number of bytes of at least 0',
        );
      }
    });
  });

  it('ends the streams of a revoked key, and only those', async () => {
    const key = server.admin.createKey('shop', 'secret');
    const doomed = await open({ slug: 'shop', key });
    const kept = await open({ slug: 'shop', key: TEST_KEYS.shopSecret });
    await doomed.event(1);
    await kept.event(1);
    server.admin.revokeKey('shop', key);
    await doomed.waitForEnd();
    server.admin.setConfig('shop', 'db.host', 'still-here');
    expect((await data(kept, 2)).json).toMatchObject({ configs: { 'db.host': 'still-here' } });
    expect((await call(server, { path: '/v1/sync', slug: 'shop', key })).status).toBe(401);
  });

  it('ends open streams when the tenant becomes overdue or quarantined', async () => {
    const a = await open({ slug: 'shop', key: TEST_KEYS.shopSecret });
    await a.event(1);
    server.admin.setTenant({ overdue_days: 20 });
    await a.waitForEnd();
    server.admin.setTenant({ overdue_days: 0, quarantined_until: new Date(Date.now() + 60_000).toISOString() });
    const b = await open({ slug: 'shop', key: TEST_KEYS.shopSecret });
    expect(b.status).toBe(429);
  });

  it('drops a consumer that stops reading once its buffer passes the bound, and keeps serving others', async () => {
    await server.close();
    server = await startVaneServer({ seed: testSeed(), streamBufferBytes: 64 * 1024 });
    const { connect } = await import('node:net');
    const socket = connect(server.port, '127.0.0.1');
    socket.write(
      `GET /v1/stream HTTP/1.1\r\nHost: shop.localhost\r\nX-Service-API-Key: ${TEST_KEYS.shopSecret}\r\n\r\n`,
    );
    socket.pause(); // never read: the kernel buffers fill, then the server's
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => undefined);
    const healthy = await open({ slug: 'shop', key: TEST_KEYS.shopSecret });
    await healthy.event(1);
    await new Promise<void>((resolve) => setImmediate(resolve));
    const big = 'x'.repeat(256 * 1024);
    const deadline = Date.now() + DEFAULT_WAIT_MS;
    let writes = 0;
    while (server.stats().droppedSlowConsumers === 0 && Date.now() < deadline && writes < 400) {
      server.admin.setConfig('shop', 'blob.value', `${big}${writes++}`);
      healthy.events.length = 0; // the healthy reader keeps reading; keep its memory small too
      await server.settled(); // each patch sent before the next write, whatever the store
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    expect(server.stats().droppedSlowConsumers).toBe(1);
    socket.resume();
    await withTimeout(closed, 'the dropped socket to close');
    server.admin.setConfig('shop', 'db.host', 'after-drop');
    await healthy.find((e) => e.data.includes('after-drop'), 'the patch after the drop');
    expect(server.stats().streams).toBe(1);
  });

  it('ends every stream on close', async () => {
    const reader = await open({ slug: 'shop', key: TEST_KEYS.shopSecret });
    await reader.event(1);
    await server.close();
    await reader.waitForEnd();
    expect(reader.ended).toBe(true);
  });
});
