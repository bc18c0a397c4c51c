import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { startVaneServer, type VaneServer } from '../src/index.js';
import { call } from './support/http-client.js';
import { DEFAULT_WAIT_MS, TEST_KEYS, testSeed } from '../src/testing/index.js';

describe('GET /v1/sync', () => {
  let server: VaneServer;

  beforeEach(async () => {
    server = await startVaneServer({ seed: testSeed() });
  });
  afterEach(() => server.close());

  it('serves the whole snapshot to a secret key, JSON types kept', async () => {
    const answer = await call(server, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(answer.headers['cache-control']).toBe('no-cache');
    expect(answer.json()).toEqual({
      service: { slug: 'shop', kind: 'backend' },
      revision: 1,
      configs: {
        'db.host': 'localhost',
        'db.pool.max': 10,
        'pricing.discount': 0.15,
        'maintenance.enabled': false,
        'cors.origins': ['https://a.example'],
        'banner.text': null,
        'port.text': '5',
      },
      flags: {
        'new-checkout': { is_enabled: true, starts_at: null, ends_at: null, is_active: true },
        beta: { is_enabled: false, starts_at: null, ends_at: null, is_active: false },
        'new-pricing': { is_enabled: true, starts_at: null, ends_at: null, is_active: true },
      },
      secrets: {
        'stripe.api_key': { type: 'text', value: 'rk_test_123', version: 1 },
        'tls.client_pem': { type: 'file', value: 'pem-v2', version: 2 },
      },
    });
  });

  it('omits secrets entirely for a public key', async () => {
    const body = (await call(server, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopPublic })).json();
    expect(body).not.toHaveProperty('secrets');
    expect(body['configs']).toHaveProperty(['db.host'], 'localhost');
  });

  it('serves no secrets of a frontend service to anyone', async () => {
    for (const key of [TEST_KEYS.webSecret, TEST_KEYS.webPublic]) {
      const answer = await call(server, { path: '/v1/sync', slug: 'web', key });
      expect(answer.status).toBe(200);
      expect(answer.json()).not.toHaveProperty('secrets');
      expect(answer.text).not.toContain('never-served');
      expect(answer.json()['service']).toEqual({ slug: 'web', kind: 'frontend' });
    }
  });

  it('sends a strong ETag over exactly the bytes received, different per audience', async () => {
    const secret = await call(server, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret });
    const again = await call(server, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret });
    const pub = await call(server, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopPublic });
    const etag = secret.headers.etag!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(again.headers.etag).toBe(etag);
    expect(again.text).toBe(secret.text);
    expect(pub.headers.etag).not.toBe(etag);
    // The validator is a function of the bytes: a digest of them.
    const digest = createHash('sha256').update(secret.text).digest('base64url').slice(0, 43);
    expect(etag).toBe(`"${digest}"`);
  });

  it('answers 304 with the ETag and no body when If-None-Match matches, 200 after a change', async () => {
    const first = await call(server, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret });
    const etag = first.headers.etag!;
    for (const header of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
      const notModified = await call(server, {
        path: '/v1/sync',
        slug: 'shop',
        key: TEST_KEYS.shopSecret,
        headers: { 'if-none-match': header },
      });
      expect(notModified.status).toBe(304);
      expect(notModified.headers.etag).toBe(etag);
      expect(notModified.text).toBe('');
    }
    server.admin.setConfig('shop', 'db.pool.max', 30);
    const changed = await call(server, {
      path: '/v1/sync',
      slug: 'shop',
      key: TEST_KEYS.shopSecret,
      headers: { 'if-none-match': etag },
    });
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect(changed.json()).toMatchObject({ revision: 2, configs: { 'db.pool.max': 30 } });
  });

  it('keeps JSON number identity: 5.0 and 5 are the same number, "5" stays a string', async () => {
    const rev = server.admin.setConfig('shop', 'db.pool.max', 10.0);
    expect(rev).toBe(1); // same value: no new revision
    const body = (await call(server, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret })).json<{
      configs: Record<string, unknown>;
    }>();
    expect(body.configs['db.pool.max']).toBe(10);
    expect(body.configs['port.text']).toBe('5');
  });

  describe('authentication and addressing', () => {
    it.each([
      ['no key', undefined],
      ['an empty key', ''],
      ['an unknown key', 'svs_unknown_key'],
      ['a revoked key', TEST_KEYS.shopRevoked],
      ["another service's key", TEST_KEYS.otherSecret],
    ])('answers 401 for %s, without echoing the key', async (_name, key) => {
      const answer = await call(server, { path: '/v1/sync', slug: 'shop', key });
      expect(answer.status).toBe(401);
      expect(answer.json()).toEqual({ error: 'unauthorized', message: expect.any(String) });
      if (key) expect(answer.text).not.toContain(key);
    });

    it('answers 404 not_found for an unknown slug', async () => {
      const answer = await call(server, { path: '/v1/sync', slug: 'nope', key: TEST_KEYS.shopSecret });
      expect(answer.status).toBe(404);
      expect(answer.json()['error']).toBe('not_found');
      expect(answer.text).not.toContain(TEST_KEYS.shopSecret);
    });

    it('finds the service from the first label of Host, with or without a port', async () => {
      for (const host of ['shop.localhost', `SHOP.localhost:${server.port}`, 'shop.vane.example.com']) {
        const answer = await call(server, { path: '/v1/sync', host, key: TEST_KEYS.shopSecret });
        expect(answer.status).toBe(200);
      }
    });

    it('answers 404 for a path outside /v1/ and for an unknown /v1 route', async () => {
      for (const path of ['/', '/sync', '/v2/sync', '/v1/sync/extra', '/v1/nothing']) {
        const answer = await call(server, { path, slug: 'shop', key: TEST_KEYS.shopSecret });
        expect(answer.status).toBe(404);
        expect(answer.json()['error']).toBe('not_found');
      }
    });

    it('answers 400 to a request with no Host header', async () => {
      const socket = connect(server.port, '127.0.0.1');
      socket.write('GET /v1/sync HTTP/1.0\r\nX-Service-API-Key: svs_shop_test_secret\r\n\r\n');
      const raw = await new Promise<string>((resolve, reject) => {
        let text = '';
        const timer = setTimeout(() => reject(new Error('no answer')), DEFAULT_WAIT_MS);
        socket.on('data', (c) => (text += c.toString()));
        socket.on('end', () => {
          clearTimeout(timer);
          resolve(text);
        });
        socket.on('error', reject);
      });
      socket.destroy();
      expect(raw).toMatch(/^HTTP\/1\.[01] 400/);
      expect(raw).toContain('"error":"invalid_request"');
    });
  });
});
