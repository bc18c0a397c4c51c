import { createServer } from 'node:net';
import { createVane, type VaneExpressOptions } from '@vane/express';
import { startVaneServer, type VaneServer } from '@vane/server';
import request from 'supertest';
import { CountingDispatcher } from './support/counting-dispatcher.js';
import { EXPRESS_VERSIONS } from './support/express-versions.js';
import { ADAPTER_KEYS, adapterSeed } from '@vane/test-harness';

const quiet = { warn: () => undefined, error: () => undefined };

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('createVane', () => {
  let server: VaneServer;

  beforeEach(async () => {
    server = await startVaneServer({ seed: adapterSeed(), port: 0 });
  });
  afterEach(() => server.close());

  it('resolves after the initial sync, with the cache full', async () => {
    const vane = await createVane({ baseUrl: server.baseUrl('shop'), apiKey: ADAPTER_KEYS.secret, logger: quiet });
    try {
      expect(vane.client.revision).toBe(server.revision('shop'));
      expect(vane.client.config('db.host')).toBe('localhost');
      expect(vane.client.flagKeys().sort()).toEqual(['beta', 'big-banner', 'dark-mode', 'new-checkout', 'new-pricing']);
    } finally {
      await vane.close();
    }
  });

  it.each<
    [string, () => Promise<Partial<VaneExpressOptions>> | Partial<VaneExpressOptions>, string, number | undefined]
  >([
    ['401 (wrong key)', () => ({ apiKey: 'svs_this_key_does_not_exist' }), 'VANE_UNAUTHORIZED', 401],
    ['401 (revoked key)', () => (server.admin.revokeKey('shop', ADAPTER_KEYS.secret), {}), 'VANE_UNAUTHORIZED', 401],
    ['404 (wrong slug)', () => ({ baseUrl: server.baseUrl('no-such-service') }), 'VANE_NOT_FOUND', 404],
    ['402 (billing overdue)', () => (server.admin.setTenant({ overdue_days: 15 }), {}), 'VANE_BILLING_OVERDUE', 402],
    [
      '429 (quarantined)',
      () => (server.admin.setTenant({ quarantined_until: new Date(Date.now() + 60_000).toISOString() }), {}),
      'VANE_QUARANTINED',
      429,
    ],
    [
      'an unreachable service',
      async () => ({ baseUrl: `http://shop.localhost:${await closedPort()}` }),
      'VANE_TRANSPORT',
      undefined,
    ],
  ])(
    "rejects on %s with the client's typed error, whose message holds no key",
    async (_case, overrides, code, status) => {
      const options = {
        baseUrl: server.baseUrl('shop'),
        apiKey: ADAPTER_KEYS.secret,
        logger: quiet,
        ...(await overrides()),
      };
      const error = await createVane(options).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error).toMatchObject({ code });
      if (status !== undefined) expect(error).toMatchObject({ status });
      expect(String((error as Error).message)).not.toContain(options.apiKey);
    },
  );

  it.each<[string, Partial<VaneExpressOptions>]>([
    ['a key that is neither svs_ nor svp_', { apiKey: 'not-a-key' }],
    ['a base URL that is not a URL', { baseUrl: 'shop' }],
    ['an abContext that is not a function', { abContext: 'user-id' as unknown as VaneExpressOptions['abContext'] }],
    ['a flagOff status that is not a status', { flagOff: { status: 99 } }],
  ])('rejects %s with VANE_INVALID_ARGUMENT before any request', async (_case, overrides) => {
    const http = new CountingDispatcher();
    try {
      const options = {
        baseUrl: server.baseUrl('shop'),
        apiKey: ADAPTER_KEYS.secret,
        logger: quiet,
        dispatcher: http.dispatcher,
        ...overrides,
      };
      await expect(createVane(options)).rejects.toMatchObject({ code: 'VANE_INVALID_ARGUMENT' });
      expect(http.requests).toEqual([]);
    } finally {
      await http.close();
    }
  });
});

describe.each(EXPRESS_VERSIONS)('vane.close on %s', (_name, makeApp) => {
  it('is idempotent, closes the stream, and leaves reads answering from the last snapshot', async () => {
    const server = await startVaneServer({ seed: adapterSeed(), port: 0 });
    try {
      const vane = await createVane({
        baseUrl: server.baseUrl('shop'),
        apiKey: ADAPTER_KEYS.secret,
        logger: quiet,
        abContext: () => ({ userId: 'u' }),
      });
      const app = makeApp();
      app.use(vane.middleware());
      app.get('/read', (req, res) =>
        res.json({ host: req.vane.config('db.host'), pem: req.vane.secretFile('tls.client_pem') === null }),
      );
      app.get('/ab', vane.requireFlag('big-banner', { ab: true }), (_req, res) => res.json({}));
      app.use(vane.errorHandler({ logger: false }));

      const first = vane.close();
      const second = vane.close();
      expect(second).toBe(first);
      await Promise.all([first, second, vane.close()]);
      expect(vane.client.closed).toBe(true);
      expect(vane.client.connected).toBe(false);

      expect((await request(app).get('/read').expect(200)).body).toEqual({ host: 'localhost', pem: true });
      expect((await request(app).get('/ab').expect(503)).body).toMatchObject({ code: 'VANE_CLIENT_CLOSED' });
    } finally {
      await server.close();
    }
  });
});
