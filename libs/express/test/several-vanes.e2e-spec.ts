import type { RequestHandler } from 'express';
import request from 'supertest';
import { pinStatsOf } from '@vane/client/adapter';
import { waitForRevision } from '@vane/server/testing';
import { createVane, type VaneExpress } from '../src/index.js';
import { EXPRESS_VERSIONS } from './support/express-versions.js';
import { startFixture, type VaneFixture } from './support/vane-fixture.js';

describe.each(EXPRESS_VERSIONS)('several Vanes on one app, on %s', (_name, makeApp) => {
  let fx: VaneFixture;
  let second: VaneExpress | undefined;

  afterEach(async () => {
    await second?.close();
    second = undefined;
    await fx.close();
  });

  it('each request has an accessor per Vane, each pinned to its own revision, all let go when the response closes', async () => {
    fx = await startFixture();
    // A second Vane on the same service, live: it sees a change the pinned one does not.
    second = await createVane({
      baseUrl: fx.server.baseUrl('shop'),
      apiKey: fx.server.secretKey('shop'),
      consistentReads: false,
      logger: { warn: () => undefined, error: () => undefined },
    });
    const a = makeApp();
    a.use(fx.vane.middleware(), second.middleware());
    let round = 0;
    const handler: RequestHandler = (req, res, next) => {
      const accessor = req.vane; // the last Vane's: the live one
      const before = { pinned: fx.vane.client.config('db.pool.max'), live: accessor.config('db.pool.max') };
      round++;
      const changed = fx.server.admin.setConfig('shop', 'db.pool.max', 100 + round);
      Promise.all([waitForRevision(fx.vane.client, changed), waitForRevision(second!.client, changed)])
        .then(() =>
          res.json({
            before,
            after: { pinned: fx.vane.client.config('db.pool.max'), live: accessor.config('db.pool.max') },
          }),
        )
        .catch(next);
    };
    a.get('/reads', fx.vane.requireFlag('new-checkout'), second.requireFlag('new-checkout'), handler);

    const res = await request(a).get('/reads').expect(200);
    expect(res.body).toEqual({ before: { pinned: 10, live: 10 }, after: { pinned: 10, live: 101 } });
    // The pinned Vane's request let go of its revision when the response closed.
    await waitForHeld(fx.vane, 0);
    const next = await request(a).get('/reads').expect(200);
    expect(next.body.before).toEqual({ pinned: 101, live: 101 });
    await waitForHeld(fx.vane, 0);
  });
});

/** Waits (bounded) until the client holds `count` replaced revisions: the response's `close` runs after supertest has the body. */
async function waitForHeld(vane: VaneExpress, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (pinStatsOf(vane.client).heldRevisions !== count) {
    if (Date.now() > deadline) throw new Error(`still ${pinStatsOf(vane.client).heldRevisions} held revisions`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}
