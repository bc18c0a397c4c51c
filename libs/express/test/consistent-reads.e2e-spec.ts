import { readFileSync } from 'node:fs';
import type { VaneClient } from '@vane/client';
import type { RequestHandler } from 'express';
import request from 'supertest';
import { waitForRevision } from '@vane/server/testing';
import { ADAPTER_SECRET_VALUES } from '@vane/test-harness';
import { EXPRESS_VERSIONS } from './support/express-versions.js';
import { startFixture, type VaneFixture } from './support/vane-fixture.js';

/** What a handler reads: through `req.vane`, and through `vane.client` in a service it calls. */
interface Reads {
  readonly flag: boolean;
  readonly pool: unknown;
  readonly key: string | null;
  readonly pem: string;
  readonly revision: number;
}

/** A service of the app: it only knows the client, as app code usually does. */
const serviceReads = (client: VaneClient): Reads => ({
  flag: client.flag('new-checkout'),
  pool: client.config('db.pool.max'),
  key: client.secret('stripe.api_key'),
  pem: readFileSync(client.requireSecretFile('tls.client_pem'), 'utf8'),
  revision: client.revision,
});

describe.each(EXPRESS_VERSIONS)('one revision per request on %s', (_name, makeApp) => {
  let fx: VaneFixture;
  let round = 0;

  /** Changes the guard's flag (off), a config, both secrets, mid-request; resolves once the client has them. */
  const change = (): Promise<number> => {
    round++;
    fx.server.admin.setConfig('shop', 'db.pool.max', 100 + round);
    fx.server.admin.setSecret('shop', 'stripe.api_key', `rk_round_${round}`);
    fx.server.admin.setSecret('shop', 'tls.client_pem', `pem-round-${round}`, 'file');
    return waitForRevision(fx.vane.client, fx.server.admin.setFlag('shop', 'new-checkout', { is_enabled: false }));
  };

  function app() {
    const a = makeApp();
    a.use(fx.vane.middleware());
    const handler: RequestHandler = (req, res, next) => {
      const pemPath = req.vane.requireSecretFile('tls.client_pem');
      const before = { ...serviceReads(fx.vane.client), viaReq: req.vane.flag('new-checkout') };
      change()
        .then(() => {
          res.json({
            before,
            after: { ...serviceReads(fx.vane.client), viaReq: req.vane.flag('new-checkout') },
            reqPem: readFileSync(pemPath, 'utf8'),
            reqPool: req.vane.config('db.pool.max'),
          });
        })
        .catch(next);
    };
    a.get('/reads', fx.vane.requireFlag('new-checkout'), handler);
    return a;
  }

  afterEach(() => fx.close());

  it('the guard, req.vane and the client in a service read the revision of the start; the next request sees the change', async () => {
    fx = await startFixture();
    round = 0;
    const a = app();
    const res = await request(a).get('/reads').expect(200);
    const first = {
      flag: true,
      pool: 10,
      key: ADAPTER_SECRET_VALUES.stripe,
      pem: ADAPTER_SECRET_VALUES.pemV2,
      viaReq: true,
    };
    expect(res.body.before).toMatchObject(first);
    expect(res.body.after).toEqual(res.body.before);
    expect(res.body).toMatchObject({ reqPem: ADAPTER_SECRET_VALUES.pemV2, reqPool: 10 });
    // The guard of the next request reads the new revision: the flag is off, the route is absent.
    await request(a).get('/reads').expect(404);
    await waitForRevision(fx.vane.client, fx.server.admin.setFlag('shop', 'new-checkout', { is_enabled: true }));
    const next = await request(a).get('/reads').expect(200);
    expect(next.body.before).toMatchObject({ flag: true, pool: 101, key: 'rk_round_1', pem: 'pem-round-1' });
    expect(next.body.after).toEqual(next.body.before);
  });

  it('with consistentReads: false, the handler sees the change', async () => {
    fx = await startFixture({ consistentReads: false });
    round = 0;
    const res = await request(app()).get('/reads').expect(200);
    expect(res.body.before).toMatchObject({
      flag: true,
      pool: 10,
      key: ADAPTER_SECRET_VALUES.stripe,
      pem: ADAPTER_SECRET_VALUES.pemV2,
    });
    expect(res.body.after).toMatchObject({
      flag: false,
      pool: 101,
      key: 'rk_round_1',
      pem: 'pem-round-1',
      viaReq: false,
    });
    expect(res.body).toMatchObject({ reqPem: 'pem-round-1', reqPool: 101 });
  });
});
