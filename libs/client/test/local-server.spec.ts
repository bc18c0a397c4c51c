import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { createServer } from 'node:net';
import { inspect } from 'node:util';
import { startVaneServer, type VaneServer } from '@vane/server';
import { checkConnectivity, VaneClient, type ChangeEvent, type VaneClientOptions } from '../src/index.js';
import { MemoryLogger } from './helpers/fake-transport.js';

import { SHOP_PK, SHOP_SK, TLS_PEM, WEB_SK, seed } from './helpers/seed.js';
import { until, waitForRevision, waitForStatus } from '@vane/server/testing';

let server: VaneServer;
const clients: VaneClient[] = [];
let logger: MemoryLogger;

beforeEach(async () => {
  server = await startVaneServer({ seed: seed(), port: 0 });
  logger = new MemoryLogger();
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await server.close();
  // Nothing the client logged may carry a key or a secret value.
  expect(logger.text()).not.toMatch(/svs_shop_e2e_secret_key_000001|svp_shop_e2e_public_key_000001|TOPSECRET/);
});

async function connect(options: Partial<VaneClientOptions> = {}): Promise<VaneClient> {
  const client = await VaneClient.create({ baseUrl: server.baseUrl('shop'), apiKey: SHOP_SK, logger, ...options });
  clients.push(client);
  return client;
}

/** Resolves with the first change event matching, within a bounded time. */
function nextEvent(client: VaneClient, match: (e: ChangeEvent) => boolean, timeoutMs = 2000): Promise<ChangeEvent> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error('no matching change event in time'));
    }, timeoutMs);
    const off = client.onChange((e) => {
      if (!match(e)) return;
      clearTimeout(timer);
      off();
      resolve(e);
    });
  });
}

describe('against the local server', () => {
  it('creates with a full cache: typed configs, flags, text and file secrets', async () => {
    const client = await connect({ stream: false });
    expect(client.keyType).toBe('sk');
    expect(client.serviceKind).toBe('backend');
    expect(client.serviceSlug).toBe('shop');
    expect(client.revision).toBe(server.revision('shop'));
    expect(client.config('db.pool.max')).toBe(20);
    expect(client.config('pricing.discount')).toBe(0.15);
    expect(client.config('maintenance.enabled')).toBe(false);
    expect(client.config('cors.origins')).toEqual(['https://a.example']);
    expect(client.configLookup('banner.text')).toEqual({ found: true, value: null });
    expect(client.flag('dark-mode')).toBe(false);
    expect(client.flagState('dark-mode')).toEqual({ defined: true, active: false });
    expect(client.flag('new-checkout')).toBe(true);
    expect(client.secret('stripe.api_key')).toBe('rk_test_TOPSECRET');
    const path = client.requireSecretFile('tls.client_pem');
    expect(readFileSync(path, 'utf8')).toBe(TLS_PEM);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(path)).mode & 0o777).toBe(0o700);
    expect(client.secretInfo('tls.client_pem')).toEqual({ type: 'file', version: 2 });
    await client.close();
    expect(existsSync(path)).toBe(false);
  });

  it('a 304 when nothing changed, a 200 when something did', async () => {
    const client = await connect({ stream: false });
    await expect(client.sync()).resolves.toEqual({ status: 'not-modified', revision: client.revision });
    const revision = server.admin.setConfig('shop', 'db.pool.max', 30);
    await expect(client.sync()).resolves.toEqual({ status: 'updated', revision });
    expect(client.config('db.pool.max')).toBe(30);
  });

  it('streams admin changes to change listeners: configs, flags, secrets (versions, not values)', async () => {
    const client = await connect();
    await waitForStatus(client, (s) => s.connected, { what: 'stream connected' });
    const filePath = client.requireSecretFile('tls.client_pem');

    let event = nextEvent(client, (e) => e.key === 'db.pool.max');
    let revision = server.admin.setConfig('shop', 'db.pool.max', 30);
    expect(await event).toEqual({ kind: 'config', key: 'db.pool.max', oldValue: 20, newValue: 30, revision });

    event = nextEvent(client, (e) => e.key === 'dark-mode');
    revision = server.admin.setFlag('shop', 'dark-mode', { is_enabled: true });
    expect(await event).toEqual({ kind: 'flag', key: 'dark-mode', oldValue: false, newValue: true, revision });
    expect(client.flag('dark-mode')).toBe(true);

    event = nextEvent(client, (e) => e.key === 'stripe.api_key');
    const written = server.admin.setSecret('shop', 'stripe.api_key', 'rk_test_TOPSECRET_2');
    const secretEvent = await event;
    expect(secretEvent).toMatchObject({
      kind: 'secret',
      oldValue: { type: 'text', version: 1 },
      newValue: { type: 'text', version: written.version },
    });
    expect(JSON.stringify(secretEvent)).not.toContain('TOPSECRET');
    expect(client.secret('stripe.api_key')).toBe('rk_test_TOPSECRET_2');

    event = nextEvent(client, (e) => e.key === 'tls.client_pem');
    server.admin.setSecret('shop', 'tls.client_pem', 'pem-v3', 'file');
    await event;
    expect(client.secretFile('tls.client_pem')).toBe(filePath);
    expect(readFileSync(filePath, 'utf8')).toBe('pem-v3');

    event = nextEvent(client, (e) => e.key === 'banner.text');
    revision = server.admin.deleteConfig('shop', 'banner.text');
    expect(await event).toEqual({ kind: 'config', key: 'banner.text', oldValue: null, newValue: undefined, revision });
    expect(client.configLookup('banner.text').found).toBe(false);
    expect(client.revision).toBe(server.revision('shop'));
  });

  it('reports only real changes: setting the same value twice fires once', async () => {
    const client = await connect();
    await waitForStatus(client, (s) => s.connected, { what: 'stream connected' });
    const events: ChangeEvent[] = [];
    client.onChange((e) => events.push(e));
    server.admin.setConfig('shop', 'cors.origins', ['https://a.example']);
    const revision = server.admin.setConfig('shop', 'db.host', 'other');
    await waitForRevision(client, revision);
    expect(events.map((e) => e.key)).toEqual(['db.host']);
  });

  it.each([
    ['a wrong key', () => ({ apiKey: 'svs_shop_wrong_key_0000000000' }), 'VANE_UNAUTHORIZED', 401],
    ['a wrong slug', () => ({ baseUrl: server.baseUrl('nope') }), 'VANE_NOT_FOUND', 404],
    ["another service's key", () => ({ apiKey: WEB_SK }), 'VANE_UNAUTHORIZED', 401],
  ])('rejects creation with %s', async (_name, options, code, status) => {
    const error = await VaneClient.create({
      baseUrl: server.baseUrl('shop'),
      apiKey: SHOP_SK,
      logger,
      ...options(),
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code, status });
    expect(String(error)).not.toContain('svs_shop_wrong_key_0000000000');
  });

  it('a failed creation leaves no socket behind', async () => {
    const sockets = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;
    const before = sockets();
    await expect(
      VaneClient.create({ baseUrl: server.baseUrl('shop'), apiKey: 'svs_shop_wrong_key_0000000000', logger }),
    ).rejects.toMatchObject({ status: 401 });
    await until(() => sockets() <= before, `sockets back to ${before} (now ${sockets()})`);
  });

  it('rejects creation on billing (402) and quarantine (429, reported apart)', async () => {
    server.admin.setTenant({ overdue_days: 30 });
    await expect(connect()).rejects.toMatchObject({ code: 'VANE_BILLING_OVERDUE', status: 402 });
    server.admin.setTenant({ overdue_days: 0, quarantined_until: '2099-01-01T00:00:00Z' });
    const error = await connect().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'VANE_QUARANTINED', status: 429 });
    expect((error as { until: Date }).until.toISOString()).toBe('2099-01-01T00:00:00.000Z');
  });

  it('rejects creation with VANE_TRANSPORT when nothing listens', async () => {
    const port = await freePort();
    const error = await VaneClient.create({ baseUrl: `http://shop.localhost:${port}`, apiKey: SHOP_SK, logger }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'VANE_TRANSPORT' });
    expect((error as Error).message).toContain('ECONNREFUSED');
  });

  it('402 while running halts the stream and background sync, keeps serving, raises billingOverdue', async () => {
    const client = await connect({ backoffMinMs: 10, backoffMaxMs: 20 });
    await waitForStatus(client, (s) => s.connected, { what: 'stream connected' });
    server.admin.setTenant({ overdue_days: 30 });
    await waitForStatus(client, (s) => s.billingOverdue, { what: 'billing halt' });
    expect(client.connected).toBe(false);
    expect(client.config('db.host')).toBe('db.internal');
    server.admin.setTenant({ overdue_days: 0 });
    await expect(client.sync()).resolves.toMatchObject({ status: 'not-modified' });
    expect(client.billingOverdue).toBe(false);
    await waitForStatus(client, (s) => s.connected, { what: 'stream resumed' });
  });

  it('a public key gets no secrets and refuses secret access before any request', async () => {
    const client = await connect({ apiKey: SHOP_PK, stream: false });
    expect(client.keyType).toBe('pk');
    expect(client.config('db.host')).toBe('db.internal');
    expect(() => client.secret('stripe.api_key')).toThrow(
      expect.objectContaining({ code: 'VANE_PUBLIC_KEY_SECRET_ACCESS' }),
    );
    await expect(client.setSecret('x', 'y')).rejects.toThrow(
      expect.objectContaining({ code: 'VANE_PUBLIC_KEY_SECRET_ACCESS' }),
    );
  });

  it("a public key's stream carries every revision, without secrets", async () => {
    const client = await connect({ apiKey: SHOP_PK });
    await waitForStatus(client, (s) => s.connected, { what: 'stream connected' });
    const events: ChangeEvent[] = [];
    client.onChange((e) => events.push(e));
    server.admin.setSecret('shop', 'stripe.api_key', 'rk_test_TOPSECRET_3');
    const revision = server.admin.setConfig('shop', 'db.host', 'pk-visible');
    await waitForRevision(client, revision);
    expect(events.map((e) => `${e.kind}:${e.key}`)).toEqual(['config:db.host']);
  });

  it('a frontend service refuses secret reads even with a secret key', async () => {
    const client = await VaneClient.create({ baseUrl: server.baseUrl('web'), apiKey: WEB_SK, logger, stream: false });
    clients.push(client);
    expect(client.serviceKind).toBe('frontend');
    expect(client.config('ui.theme')).toBe('dark');
    expect(() => client.secret('anything')).toThrow(expect.objectContaining({ code: 'VANE_FRONTEND_SECRET_READ' }));
  });

  it('evaluates A/B flags; unknown keys false and not sent; 403 when the add-on is off', async () => {
    const client = await connect({ stream: false });
    const results = await client.evaluateAb(['always-on', 'dark-mode', 'unknown', 'always-on'], {
      userId: 'u-8812',
      attributes: { country: 'DE', plan: null },
    });
    expect({ ...results }).toEqual({ 'always-on': true, 'dark-mode': false, unknown: false });
    server.admin.setTenant({ ab_addon: false });
    await expect(client.evaluateAb(['always-on'], { userId: 'u' })).rejects.toMatchObject({
      code: 'VANE_ADDON_NOT_AVAILABLE',
      status: 403,
    });
  });

  it('evaluates more than 200 keys in several calls', async () => {
    for (let i = 0; i < 230; i++) server.admin.setFlag('shop', `f${i}`, { is_enabled: i % 2 === 0 });
    const client = await connect({ stream: false });
    const keys = Array.from({ length: 230 }, (_, i) => `f${i}`);
    const results = await client.evaluateAb(keys, { userId: 'u' });
    expect(keys.filter((k) => results[k])).toHaveLength(115);
  });

  it('writes secrets: set, delete a version, delete; the change arrives by the stream, not by the write', async () => {
    const client = await connect();
    await waitForStatus(client, (s) => s.connected, { what: 'stream connected' });
    const event = nextEvent(client, (e) => e.key === 'new.secret');
    const written = await client.setSecret('new.secret', 'TOPSECRET-v1');
    expect(written).toEqual({ key: 'new.secret', type: 'text', version: 1 });
    await event;
    expect(client.secret('new.secret')).toBe('TOPSECRET-v1');
    const second = await client.setSecret('new.secret', 'TOPSECRET-v2', { type: 'text' });
    expect(second.version).toBe(2);
    await client.deleteSecretVersion('new.secret', 2);
    await until(() => client.secretInfo('new.secret')?.version === 1, 'version 2 deleted');
    expect(client.secret('new.secret')).toBe('TOPSECRET-v1');
    await client.deleteSecret('new.secret');
    await until(() => client.secretInfo('new.secret') === null, 'secret deleted');
    await expect(client.deleteSecret('new.secret')).rejects.toMatchObject({ code: 'VANE_NOT_FOUND', status: 404 });
    await expect(client.deleteSecretVersion('stripe.api_key', 99)).rejects.toMatchObject({ code: 'VANE_NOT_FOUND' });
  });

  it('secret writes report the rate limit with Retry-After', async () => {
    server.admin.setTenant({ write_rate_per_minute: 1 });
    const client = await connect({ stream: false });
    await client.setSecret('a', '1');
    const error = await client.setSecret('a', '2').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'VANE_RATE_LIMITED', status: 429 });
    expect((error as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(0);
  });

  it('checkConnectivity: 200 works, 401 wrong key, 404 wrong slug, transport', async () => {
    await expect(checkConnectivity({ baseUrl: server.baseUrl('shop'), apiKey: SHOP_SK })).resolves.toMatchObject({
      ok: true,
      status: 200,
    });
    const wrongKey = await checkConnectivity({ baseUrl: server.baseUrl('shop'), apiKey: 'svs_wrong_0000000000000000' });
    expect(wrongKey).toMatchObject({ ok: false, status: 401, code: 'VANE_UNAUTHORIZED' });
    expect(wrongKey.message).toContain('svs_…0000');
    expect(wrongKey.message).not.toContain('svs_wrong_0000000000000000');
    const wrongSlug = await checkConnectivity({ baseUrl: server.baseUrl('nope'), apiKey: SHOP_SK });
    expect(wrongSlug).toMatchObject({ ok: false, status: 404, code: 'VANE_NOT_FOUND' });
    expect(wrongSlug.message).toContain('slug');
    const down = await checkConnectivity({ baseUrl: `http://shop.localhost:${await freePort()}`, apiKey: SHOP_SK });
    expect(down).toMatchObject({ ok: false, code: 'VANE_TRANSPORT' });
  });

  it('never shows the key through inspect or an error chain', async () => {
    const client = await connect({ stream: false });
    expect(inspect(client, { depth: 10, showHidden: true })).not.toContain(SHOP_SK);
    expect(JSON.stringify(client)).not.toContain(SHOP_SK);
    const error = await VaneClient.create({
      baseUrl: `http://shop.localhost:${await freePort()}`,
      apiKey: SHOP_SK,
      logger,
    }).catch((e: unknown) => e);
    expect(inspect(error, { depth: 10, showHidden: true })).not.toContain(SHOP_SK);
    const unauthorized = await VaneClient.create({
      baseUrl: server.baseUrl('shop'),
      apiKey: 'svs_shop_wrong_key_0000000000',
      logger,
    }).catch((e: unknown) => e);
    expect(inspect(unauthorized, { depth: 10, showHidden: true })).not.toContain('svs_shop_wrong_key_0000000000');
  });

  it('a service restarted under a running app: once it answers again, the change arrives within a backoff, not a TTL', async () => {
    const client = await connect({ backoffMinMs: 20, backoffMaxMs: 100, ttlMs: 60_000, streamCooldownMs: 60_000 });
    await until(() => client.connected, 'stream connected');
    const port = server.port;
    await server.close();
    await until(() => !client.connected, 'fallback to polling', { timeoutMs: 10_000 });
    await until(
      () => logger.text('warn').includes('background sync (fallback to polling) failed'),
      'the fallback poll, refused',
      { timeoutMs: 10_000 },
    );
    // Back on the same port, with a change the app has not seen.
    server = await startVaneServer({ seed: seed(), port });
    const changed = nextEvent(client, (e) => e.key === 'db.host', 15_000);
    server.admin.setConfig('shop', 'db.host', 'after-restart');
    await changed;
    expect(client.config('db.host')).toBe('after-restart');
    expect(client.connected).toBe(false); // the poll brought it; the stream waits for its cooldown
  }, 30_000);

  it('a revoked key: the stream ends, reconnects meet 401, the client keeps serving', async () => {
    const key = server.admin.createKey('shop', 'secret');
    const client = await connect({ apiKey: key, backoffMinMs: 5, backoffMaxMs: 10, streamCooldownMs: 60_000 });
    await waitForStatus(client, (s) => s.connected, { what: 'stream connected' });
    server.admin.revokeKey('shop', key);
    await waitForStatus(client, (s) => !s.connected, { what: 'fallback after repeated 401' });
    expect(client.config('db.host')).toBe('db.internal');
    expect(logger.text('warn')).toContain('unauthorized (401)');
    expect(logger.text()).not.toContain(key);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
