import { Writable } from 'node:stream';
import { jsonLogger } from '../src/ops/json-logger.js';
import { startVaneServer, type VaneServer, type VaneServerOptions } from '../src/index.js';
import { TEST_KEYS, TEST_SECRET_VALUES, testSeed, until } from '../src/testing/index.js';
import { admin, call, openStream } from './support/http-client.js';
import type { ServerMetrics } from '../src/ops/server-metrics.js';

/** The same server, addressed on another of its listeners. */
const on = (server: VaneServer, url: string): VaneServer => ({ ...server, port: Number(new URL(url).port) });

/** The value of one sample of the Prometheus text, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.split(' ').pop());
  }
  return undefined;
}

describe('health, readiness and metrics', () => {
  let server: VaneServer;
  afterEach(() => server?.close());

  it('/healthz answers 200; /readyz 200 while every check passes, 503 naming the failing one', async () => {
    let databaseUp = true;
    server = await startVaneServer({
      seed: testSeed(),
      readinessChecks: [
        { name: 'database', check: () => ({ ok: databaseUp, detail: databaseUp ? undefined : 'down' }) },
      ],
    });
    expect((await call(server, { path: '/healthz' })).json()).toEqual({ status: 'ok' });
    const ready = await call(server, { path: '/readyz' });
    expect(ready.status).toBe(200);
    expect(ready.json()).toEqual({
      ready: true,
      checks: [
        { name: 'draining', ok: true },
        { name: 'database', ok: true },
        { name: 'drift', ok: true },
      ],
    });
    databaseUp = false;
    const unready = await call(server, { path: '/readyz' });
    expect(unready.status).toBe(503);
    expect(unready.json<{ checks: unknown[] }>().checks).toContainEqual({
      name: 'database',
      ok: false,
      detail: 'down',
    });
    // A store adds its checks at run time too; a check that throws is a failed check, not a crash.
    databaseUp = true;
    const remove = server.readiness.add({
      name: 'applied-latest-revision',
      check: () => Promise.reject(new Error('revision 7 not applied')),
    });
    expect((await call(server, { path: '/readyz' })).json<{ checks: unknown[] }>().checks).toContainEqual({
      name: 'applied-latest-revision',
      ok: false,
      detail: 'revision 7 not applied',
    });
    remove();
    expect((await call(server, { path: '/readyz' })).status).toBe(200);
  });

  it('/metrics: streams by service, patches sent, commit-to-send lag, store writes, HTTP by fixed route, refusals', async () => {
    server = await startVaneServer({ seed: testSeed(), authThrottle: { freeFailures: 1 } });
    const stream = await openStream(server, { slug: 'shop', key: TEST_KEYS.shopSecret });
    await stream.event(1);
    expect((await admin(server, 'PUT', '/services/shop/configs/db.host', { value: 'db2' })).status).toBe(200);
    await stream.find((e) => e.event === 'patch', 'the patch');
    await call(server, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret });
    await call(server, { path: '/v1/sync', slug: 'shop', key: 'svs_not_a_key' });
    await call(server, { path: '/v1/no/such/route/with-a-unique-name-123', slug: 'shop', key: TEST_KEYS.shopSecret });
    for (let i = 0; i < 3; i++) await call(server, { path: '/admin/v1/services', admin: 'wrong-token' });

    // The config, and the two wrong tokens checked (kept in the store for the fleet, committed in the background);
    // the third was throttled unchecked. Scraped until the background commits are durable.
    let metrics = await call(server, { path: '/metrics' });
    await until(async () => {
      metrics = await call(server, { path: '/metrics' });
      return (sample(metrics.text, 'vane_store_write_seconds_count') ?? 0) >= 3;
    }, 'the wrong tokens to be durable in the store');
    expect(metrics.status).toBe(200);
    expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
    const text = metrics.text;
    expect(sample(text, 'vane_streams_open', { service: 'shop' })).toBe(1);
    expect(sample(text, 'vane_patches_sent_total', { service: 'shop' })).toBe(1);
    expect(sample(text, 'vane_commit_to_send_seconds_count')).toBe(1);
    expect(sample(text, 'vane_store_write_seconds_count')).toBe(3);
    expect(sample(text, 'vane_http_requests_total', { route: 'sync', method: 'GET', status: '200' })).toBe(1);
    expect(sample(text, 'vane_http_requests_total', { route: 'sync', method: 'GET', status: '401' })).toBe(1);
    expect(sample(text, 'vane_http_requests_total', { route: 'other', status: '404' })).toBe(1);
    expect(sample(text, 'vane_http_request_duration_seconds_count', { route: 'admin', method: 'PUT' })).toBe(1);
    expect(sample(text, 'vane_refused_total', { reason: 'unauthorized' })).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'vane_refused_total', { reason: 'throttled' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'vane_fleet_replicas')).toBe(1);
    expect(sample(text, 'vane_fleet_replica_streams', { replica: server.replica.id })).toBe(1);
    expect(sample(text, 'vane_fleet_replica_revision', { replica: server.replica.id, service: 'shop' })).toBe(
      server.revision('shop'),
    );
    expect(sample(text, 'vane_draining')).toBe(0);
    // Never a raw path as a label, never a key.
    expect(text).not.toContain('with-a-unique-name-123');
    expect(text).not.toContain('svs_');
    // The store's own gauges, set through the object it is given (the app sees only registry and scrape).
    const storeSide = server.metrics as ServerMetrics;
    storeSide.setRevisionLag('shop', 3);
    storeSide.setDrift('shop', 12);
    const after = (await call(server, { path: '/metrics' })).text;
    expect(sample(after, 'vane_replica_revision_lag', { service: 'shop' })).toBe(3);
    expect(sample(after, 'vane_service_drift_seconds', { service: 'shop' })).toBe(12);
    stream.close();
  });

  it('two servers in one process keep their own metrics', async () => {
    server = await startVaneServer({ seed: testSeed() });
    const other = await startVaneServer({ seed: testSeed() });
    try {
      await call(other, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret });
      const text = (await call(server, { path: '/metrics' })).text;
      expect(sample(text, 'vane_http_requests_total', { route: 'sync' })).toBeUndefined();
    } finally {
      await other.close();
    }
  });
});

describe('listeners: --admin-listen and --ops-listen', () => {
  let server: VaneServer;
  afterEach(() => server?.close());

  it('puts the admin API and console on their own listener; the main port answers 404 there', async () => {
    server = await startVaneServer({ seed: testSeed(), adminListen: '127.0.0.1:0', opsListen: '127.0.0.1:0' });
    expect(server.adminUrl).not.toBe(server.url);
    const adminSide = on(server, server.adminUrl);
    const opsSide = on(server, server.opsUrl);
    expect((await call(server, { path: '/admin/v1/services', admin: true })).status).toBe(404);
    expect((await call(server, { path: '/console/login' })).status).toBe(404);
    expect((await call(server, { path: '/metrics' })).status).toBe(404);
    expect((await call(adminSide, { path: '/admin/v1/services', admin: true })).status).toBe(200);
    expect((await call(adminSide, { path: '/console/login' })).status).toBe(200);
    expect((await call(adminSide, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret })).status).toBe(404);
    expect((await call(opsSide, { path: '/readyz' })).status).toBe(200);
    expect((await call(opsSide, { path: '/admin/v1/services', admin: true })).status).toBe(404);
    expect((await call(server, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret })).status).toBe(200);
  });

  it('without --ops-listen, the ops routes go with the admin listener', async () => {
    server = await startVaneServer({ seed: testSeed(), adminListen: '127.0.0.1:0' });
    expect(server.opsUrl).toBe(server.adminUrl);
    expect((await call(on(server, server.adminUrl), { path: '/healthz' })).status).toBe(200);
    expect((await call(server, { path: '/healthz' })).status).toBe(404);
  });

  it('refuses a bad listen address before opening anything', async () => {
    await expect(startVaneServer({ adminListen: 'nope' })).rejects.toThrow('adminListen: expected HOST:PORT');
  });
});

describe('behind a proxy: --trust-proxy and --public-url', () => {
  let server: VaneServer;
  afterEach(() => server?.close());
  const start = (options: VaneServerOptions) => startVaneServer({ seed: testSeed(), ...options });

  it('believes X-Forwarded-Host for the slug only from a trusted proxy', async () => {
    const forwarded = { 'x-forwarded-host': 'shop.vane.acme.internal', 'x-forwarded-for': '203.0.113.7' };
    server = await start({});
    const untrusted = await call(server, {
      path: '/v1/sync',
      host: `127.0.0.1:${server.port}`,
      key: TEST_KEYS.shopSecret,
      headers: forwarded,
    });
    expect(untrusted.status).toBe(404);
    await server.close();
    server = await start({ trustProxy: ['loopback'] });
    const trusted = await call(server, {
      path: '/v1/sync',
      host: `127.0.0.1:${server.port}`,
      key: TEST_KEYS.shopSecret,
      headers: forwarded,
    });
    expect(trusted.status).toBe(200);
  });

  it("throttles wrong admin tokens per client behind the proxy, not the proxy's address", async () => {
    server = await start({ trustProxy: ['127.0.0.1'], authThrottle: { freeFailures: 2, baseDelayMs: 60_000 } });
    const guess = (client: string, token: string) =>
      call(server, { path: '/admin/v1/services', admin: token, headers: { 'x-forwarded-for': client } });
    for (let i = 0; i < 6; i++) await guess('198.51.100.1', 'wrong');
    expect((await guess('198.51.100.1', server.adminToken)).status).toBe(429);
    // Another client through the same proxy is not locked out.
    expect((await guess('198.51.100.2', server.adminToken)).status).toBe(200);
  });

  it("sets the console cookie's Secure when the browser came over HTTPS through a trusted proxy", async () => {
    server = await start({ trustProxy: ['loopback'] });
    const login = (headers: Record<string, string>) =>
      call(server, {
        method: 'POST',
        path: '/console/login',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: `token=${encodeURIComponent(server.adminToken)}`,
      });
    const secure = await login({
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'vane-admin.acme.internal',
      origin: 'https://vane-admin.acme.internal',
    });
    expect(secure.status).toBe(303);
    expect(String(secure.headers['set-cookie'])).toMatch(/; Secure$/);
    const plain = await login({});
    expect(String(plain.headers['set-cookie'])).not.toContain('Secure');
  });

  it('prints public base URLs from --public-url, and keeps the admin API off the services’ host names', async () => {
    server = await start({ publicUrl: 'https://{slug}.vane.acme.internal', trustProxy: ['loopback'] });
    expect(server.baseUrl('shop')).toBe('https://shop.vane.acme.internal');
    const viaService = await call(server, {
      path: '/admin/v1/services',
      admin: true,
      headers: { 'x-forwarded-host': 'shop.vane.acme.internal' },
    });
    expect(viaService.status).toBe(404);
    expect(
      (await call(server, { path: '/admin/v1/services', admin: true, host: 'shop.vane.acme.internal' })).status,
    ).toBe(404);
    expect(
      (await call(server, { path: '/admin/v1/services', admin: true, host: 'vane-admin.acme.internal' })).status,
    ).toBe(200);
  });
});

describe('structured logs', () => {
  it('writes JSON lines with a request id for writes and refused tokens, and never a key, token or secret value', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    const adminToken = 'CANARY-admin-token-4f1c';
    const server = await startVaneServer({ seed: testSeed(), adminToken, logger: jsonLogger({ destination }) });
    try {
      const secretValue = 'CANARY-secret-value-77aa';
      const written = await call(server, {
        method: 'PUT',
        path: '/admin/v1/services/shop/secrets/stripe.api_key',
        admin: true,
        headers: { 'x-request-id': 'req-from-proxy-1' },
        body: { value: secretValue },
      });
      expect(written.status).toBe(200);
      expect(written.headers['x-request-id']).toBe('req-from-proxy-1');
      await call(server, {
        method: 'PUT',
        path: '/admin/v1/services/shop/configs/db.host',
        admin: true,
        body: { value: 'CANARY-config' },
      });
      await call(server, { path: '/admin/v1/services', admin: 'CANARY-wrong-token-0b9e' });
      await call(server, { path: '/v1/sync', slug: 'shop', key: 'svs_CANARY_wrong_key' });
      await until(
        () => lines.some((l) => l.includes('"credential_refused"') && l.includes('"sync"')),
        'the refusal line',
      );
      const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(records).toContainEqual(
        expect.objectContaining({
          event: 'write',
          change: 'secret.version',
          service: 'shop',
          item: 'stripe.api_key',
          actor: 'admin',
          request_id: 'req-from-proxy-1',
          revision: expect.any(Number),
        }),
      );
      expect(records).toContainEqual(expect.objectContaining({ event: 'write', change: 'config', item: 'db.host' }));
      expect(records).toContainEqual(
        expect.objectContaining({ event: 'credential_refused', route: 'admin', request_id: expect.any(String) }),
      );
      const all = lines.join('\n');
      for (const canary of [
        adminToken,
        secretValue,
        'CANARY-config',
        'CANARY-wrong-token',
        'svs_CANARY',
        TEST_KEYS.shopSecret,
        TEST_SECRET_VALUES.stripe,
      ]) {
        expect(all).not.toContain(canary);
      }
    } finally {
      await server.close();
    }
  });
});
