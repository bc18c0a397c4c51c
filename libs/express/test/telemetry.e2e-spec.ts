import type { AbContext } from '@vane/express';
import type { Request, RequestHandler } from 'express';
import request from 'supertest';
import { OtelSdk } from '../../client/test/helpers/otel-sdk.js';
import { EXPRESS_VERSIONS, type AppFactory } from './support/express-versions.js';
import { startFixture, type VaneFixture } from './support/vane-fixture.js';

/** A/B context from headers, as an app would take it from its session. */
function headerContext(req: Request): AbContext | null {
  const userId = req.get('x-user-id');
  return userId === undefined ? null : { userId, attributes: { country: req.get('x-country') } };
}

describe.each(EXPRESS_VERSIONS)(
  'requireFlag decisions as feature_flag.evaluation events on %s',
  (_name, makeApp: AppFactory) => {
    let sdk: OtelSdk;
    let fx: VaneFixture;

    beforeEach(async () => {
      sdk = OtelSdk.install();
      fx = await startFixture({ abContext: headerContext });
    });
    afterEach(async () => {
      await fx.close();
      await sdk.uninstall();
    });

    /** The request's span, as an app's HTTP instrumentation opens it, ended when the answer is sent. */
    const requestSpan: RequestHandler = (req, res, next) => {
      sdk.tracerProvider.getTracer('http').startActiveSpan(`${req.method} ${req.path}`, (span) => {
        res.on('finish', () => span.end());
        next();
      });
    };
    const eventsOf = (path: string) =>
      sdk
        .spans()
        .find((s) => s.name === `GET ${path}`)!
        .events.map((e) => ({ name: e.name, ...e.attributes }));

    it('plain guards: on (static), off (disabled), undefined (error), at the revision served', async () => {
      const app = makeApp();
      app.use(requestSpan);
      app.get('/on', fx.vane.requireFlag(['new-checkout', 'beta']), (_req, res) => res.json({}));
      app.get('/missing', fx.vane.requireFlag('no-such-flag'), (_req, res) => res.json({}));
      await request(app).get('/on').expect(404);
      await request(app).get('/missing').expect(404);
      const version = String(fx.vane.client.revision);
      const event = {
        name: 'feature_flag.evaluation',
        'feature_flag.provider.name': 'vane',
        'feature_flag.version': version,
      };
      expect(eventsOf('/on')).toEqual([
        {
          ...event,
          'feature_flag.key': 'new-checkout',
          'feature_flag.result.value': true,
          'feature_flag.result.reason': 'static',
        },
        {
          ...event,
          'feature_flag.key': 'beta',
          'feature_flag.result.value': false,
          'feature_flag.result.reason': 'disabled',
        },
      ]);
      expect(eventsOf('/missing')).toEqual([
        {
          ...event,
          'feature_flag.key': 'no-such-flag',
          'feature_flag.result.value': false,
          'feature_flag.result.reason': 'error',
          'error.type': 'flag_not_found',
        },
      ]);
    });

    it('A/B guards: the decision for the user (targeting_match), without the user id unless the app opts in', async () => {
      const app = makeApp();
      app.use(requestSpan);
      app.get('/banner', fx.vane.requireFlag('big-banner', { ab: true }), (_req, res) => res.json({}));
      await request(app).get('/banner').set('x-user-id', 'u-42').expect(200);
      const [event] = eventsOf('/banner');
      expect(event).toMatchObject({
        'feature_flag.key': 'big-banner',
        'feature_flag.result.value': true,
        'feature_flag.result.reason': 'targeting_match',
      });
      expect(event).not.toHaveProperty('feature_flag.context.id');
      expect(JSON.stringify(sdk.spans().map((s) => s.attributes))).not.toContain(fx.server.secretKey('shop'));
    });

    it('no active span, no event (and the guard still decides)', async () => {
      const app = makeApp();
      app.get('/on', fx.vane.requireFlag('new-checkout'), (_req, res) => res.json({ ok: true }));
      await request(app).get('/on').expect(200, { ok: true });
      expect(sdk.spans().flatMap((s) => s.events)).toEqual([]);
    });
  },
);
