import { readFileSync } from 'node:fs';
import type { VaneClient } from '@vane/client';
import { pinStatsOf } from '@vane/client/adapter';
import vane from '@vane/fastify';
import type { FastifyInstance } from 'fastify';
import { until, waitForRevision } from '@vane/server/testing';
import { ADAPTER_SECRET_VALUES } from '@vane/test-harness';
import { send } from '../../../test/support/http.js';
import { FASTIFY_VERSIONS, type AppFactory } from './support/fastify-versions.js';
import { keptLogger, startServer, type ServerFixture } from './support/vane-fixture.js';

/** What a service of the app reads, knowing only the client. */
const serviceReads = (client: VaneClient) => ({
  flag: client.flag('new-checkout'),
  pool: client.config('db.pool.max'),
  key: client.secret('stripe.api_key'),
  pem: readFileSync(client.requireSecretFile('tls.client_pem'), 'utf8'),
  revision: client.revision,
});

describe.each(FASTIFY_VERSIONS)('one revision per request on %s', (_name, makeApp: AppFactory) => {
  let fx: ServerFixture;
  let app: FastifyInstance;
  let round = 0;

  /** Changes the guard's flag (off), a config and both secrets, mid-request; resolves once the client has them. */
  const change = (): Promise<number> => {
    round++;
    fx.server.admin.setConfig('shop', 'db.pool.max', 100 + round);
    fx.server.admin.setSecret('shop', 'stripe.api_key', `rk_round_${round}`);
    fx.server.admin.setSecret('shop', 'tls.client_pem', `pem-round-${round}`, 'file');
    return waitForRevision(app.vane.client, fx.server.admin.setFlag('shop', 'new-checkout', { is_enabled: false }));
  };

  const start = async (consistentReads?: boolean): Promise<void> => {
    fx = await startServer();
    round = 0;
    app = makeApp();
    await app.register(
      vane,
      fx.options({ logger: keptLogger(), ...(consistentReads !== undefined && { consistentReads }) }),
    );
    const handler = async (request: { vane: { flag(k: string): boolean; requireSecretFile(k: string): string } }) => {
      const pemPath = request.vane.requireSecretFile('tls.client_pem');
      const before = { ...serviceReads(app.vane.client), viaRequest: request.vane.flag('new-checkout') };
      await change();
      return {
        before,
        after: { ...serviceReads(app.vane.client), viaRequest: request.vane.flag('new-checkout') },
        requestPem: readFileSync(pemPath, 'utf8'),
      };
    };
    app.get('/reads', { config: { vane: { flags: 'new-checkout' } } }, handler);
    // A body is read from stream events: the handler must still run in the request's scope.
    app.post('/reads', { preHandler: app.vane.requireFlag('new-checkout') }, handler);
  };

  afterEach(async () => {
    await app.close();
    await fx.close();
  });

  it.each(['GET', 'POST'] as const)(
    '%s: the guard, request.vane and the client in a service read the revision of the start; the next request sees the change',
    async (method) => {
      await start();
      // Over a real socket: a body arrives in its own stream events, after the request's first hooks.
      const url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/reads`;
      const call = async () => {
        const answer = await send(method, url, {
          headers: { 'content-type': 'application/json' },
          ...(method === 'POST' && { body: '{"order":1}' }),
        });
        return { statusCode: answer.status, json: () => answer.body };
      };
      const res = await call();
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.before).toMatchObject({
        flag: true,
        pool: 10,
        key: ADAPTER_SECRET_VALUES.stripe,
        pem: ADAPTER_SECRET_VALUES.pemV2,
      });
      expect(body.after).toEqual(body.before);
      expect(body.requestPem).toBe(ADAPTER_SECRET_VALUES.pemV2);
      expect((await call()).statusCode).toBe(404);
      await waitForRevision(app.vane.client, fx.server.admin.setFlag('shop', 'new-checkout', { is_enabled: true }));
      const next = (await call()).json();
      expect(next.before).toMatchObject({ flag: true, pool: 101, key: 'rk_round_1', pem: 'pem-round-1' });
      expect(next.after).toEqual(next.before);
      await until(() => pinStatsOf(app.vane.client).heldRevisions === 0, 'every request to let its revision go');
    },
  );

  it('with consistentReads: false, the handler sees the change', async () => {
    await start(false);
    const body = (await app.inject('/reads')).json();
    expect(body.before).toMatchObject({ flag: true, pool: 10, key: ADAPTER_SECRET_VALUES.stripe });
    expect(body.after).toMatchObject({
      flag: false,
      pool: 101,
      key: 'rk_round_1',
      pem: 'pem-round-1',
      viaRequest: false,
    });
    expect(body.requestPem).toBe('pem-round-1');
  });
});
