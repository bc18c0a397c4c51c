import type { AbContext, VaneExpress } from '@vane/express';
import type { NextFunction, Request, Response } from 'express';
import request from 'supertest';
import { EXPRESS_VERSIONS, type AppFactory } from './support/express-versions.js';
import { startFixture, type VaneFixture } from './support/vane-fixture.js';
import { waitForChange } from '@vane/server/testing';

const EVALUATE_AB = '/v1/flags/evaluate-ab';

/** A/B context from headers, as an app would take it from its session. */
function headerContext(req: Request): AbContext | null {
  const userId = req.get('x-user-id');
  if (userId === undefined) return null;
  return { userId, attributes: { country: req.get('x-country'), plan: req.get('x-plan') } };
}

/** A final error handler that shows what reached it. */
function showError(err: Error, _req: Request, res: Response, _next: NextFunction): void {
  res.status(599).json({ reached: 'app error handler', name: err.name, message: err.message });
}

describe.each(EXPRESS_VERSIONS)('vane.requireFlag on %s', (_name, makeApp: AppFactory) => {
  describe('plain flags', () => {
    let fx: VaneFixture;
    let vane: VaneExpress;

    beforeEach(async () => {
      fx = await startFixture();
      vane = fx.vane;
    });
    afterEach(() => fx.close());

    it('lets the request through when the flag is on', async () => {
      const app = makeApp();
      app.get('/checkout', vane.requireFlag('new-checkout'), (_req, res) => res.json({ checkout: 'new' }));
      expect((await request(app).get('/checkout').expect(200)).body).toEqual({ checkout: 'new' });
    });

    it.each([
      ['off', 'beta'],
      ['not defined', 'no-such-flag'],
    ])(
      "falls through to Express's own 404 when the flag is %s: the same answer as a path no route has",
      async (_case, key) => {
        const app = makeApp();
        const handler = jest.fn((_req: Request, res: Response) => res.json({ reached: true }));
        app.get('/gated', vane.requireFlag(key), handler);
        const refused = await request(app).get('/gated?page=2').expect(404);
        const absent = await request(app).get('/nothere?page=2').expect(404);
        expect(refused.headers['content-type']).toBe(absent.headers['content-type']);
        expect(refused.text).toBe(absent.text.replace('/nothere', '/gated'));
        expect(refused.text).not.toContain(key);
        expect(handler).not.toHaveBeenCalled();
      },
    );

    it("falls through to the app's own 404 handler, A/B guards too", async () => {
      await fx.close();
      fx = await startFixture({ abContext: headerContext });
      const app = makeApp();
      app.get('/gated', fx.vane.requireFlag('beta'), (_req, res) => res.json({ reached: true }));
      app.get('/pricing', fx.vane.requireFlag('new-pricing', { ab: true }), (_req, res) => res.json({ reached: true }));
      app.use((req, res) => void res.status(404).json({ notFound: req.path }));
      await request(app).get('/gated').expect(404, { notFound: '/gated' });
      await request(app).get('/nothere').expect(404, { notFound: '/nothere' });
      await request(app)
        .get('/pricing')
        .set({ 'x-user-id': 'u-1', 'x-country': 'US' })
        .expect(404, { notFound: '/pricing' });
      await request(app).get('/pricing').set({ 'x-user-id': 'u-1', 'x-country': 'DE' }).expect(200, { reached: true });
    });

    it('lets a later route of the same path serve while the flag is off (old and new handler side by side)', async () => {
      const app = makeApp();
      app.get('/checkout', vane.requireFlag('beta'), (_req, res) => res.json({ checkout: 'new' }));
      app.get('/checkout', (_req, res) => res.json({ checkout: 'old' }));
      await request(app).get('/checkout').expect(200, { checkout: 'old' });
    });

    it("as middleware of a mounted router leaves that router: the app's 404 handler answers", async () => {
      const app = makeApp();
      const admin = makeApp(); // a sub-app: a router of the same Express major
      admin.use(vane.requireFlag('beta'));
      admin.get('/panel', (_req, res) => res.json({ reached: true }));
      app.use('/admin', admin);
      app.use((req, res) => void res.status(404).json({ notFound: req.originalUrl }));
      await request(app).get('/admin/panel').expect(404, { notFound: '/admin/panel' });
    });

    it("answers today's JSON 404 with { status: 404 }, per guard or app-wide with flagOff", async () => {
      const app = makeApp();
      app.get('/json', vane.requireFlag('beta', { status: 404 }), (_req, res) => res.json({}));
      await request(app).get('/json').expect(404, { statusCode: 404, message: 'Not Found' });
      await fx.close();
      fx = await startFixture({ flagOff: { status: 404 } });
      const withDefault = makeApp();
      withDefault.get('/json', fx.vane.requireFlag('beta'), (_req, res) => res.json({}));
      await request(withDefault).get('/json').expect(404, { statusCode: 404, message: 'Not Found' });
    });

    it('changes its answer when the flag is flipped through the admin API, without a restart', async () => {
      const app = makeApp();
      app.get('/checkout', vane.requireFlag('new-checkout'), (_req, res) => res.json({ checkout: 'new' }));
      await request(app).get('/checkout').expect(200);

      const off = waitForChange(
        vane.client,
        (e) => e.kind === 'flag' && e.key === 'new-checkout' && e.newValue === false,
      );
      fx.server.admin.setFlag('shop', 'new-checkout', { is_enabled: false });
      await off;
      await request(app).get('/checkout').expect(404);

      const on = waitForChange(
        vane.client,
        (e) => e.kind === 'flag' && e.key === 'new-checkout' && e.newValue === true,
      );
      fx.server.admin.setFlag('shop', 'new-checkout', { is_enabled: true });
      await on;
      await request(app).get('/checkout').expect(200);
    });

    it('answers a configured status', async () => {
      const app = makeApp();
      app.get('/gated', vane.requireFlag('beta', { status: 403 }), (_req, res) => res.json({}));
      expect((await request(app).get('/gated').expect(403)).body).toEqual({ statusCode: 403, message: 'Forbidden' });
    });

    it('hands the denial to a custom handler', async () => {
      const app = makeApp();
      app.get(
        '/gated',
        vane.requireFlag(['new-checkout', 'no-such-flag'], {
          handler: (_req, res, _next, denial) => void res.status(418).json({ denial }),
        }),
        (_req, res) => res.json({}),
      );
      expect((await request(app).get('/gated').expect(418)).body).toEqual({
        denial: { key: 'no-such-flag', reason: 'undefined', ab: false },
      });
    });

    it('passes an error of the app to next()', async () => {
      const app = makeApp();
      app.get('/gated', vane.requireFlag('beta', { error: (d) => new Error(`feature ${d.key} is off`) }), (_req, res) =>
        res.json({}),
      );
      app.use(showError);
      expect((await request(app).get('/gated').expect(599)).body).toEqual({
        reached: 'app error handler',
        name: 'Error',
        message: 'feature beta is off',
      });
    });

    it("uses the flagOff option of createVane as the default, which a guard's own options replace", async () => {
      await fx.close();
      fx = await startFixture({ flagOff: { status: 451 } });
      const app = makeApp();
      app.get('/default', fx.vane.requireFlag('beta'), (_req, res) => res.json({}));
      app.get('/own', fx.vane.requireFlag('beta', { status: 403 }), (_req, res) => res.json({}));
      await request(app).get('/default').expect(451);
      await request(app).get('/own').expect(403);
    });

    it('requires every flag of a list', async () => {
      const app = makeApp();
      app.get('/both', vane.requireFlag(['new-checkout', 'beta']), (_req, res) => res.json({}));
      app.get('/one', vane.requireFlag(['new-checkout']), (_req, res) => res.json({}));
      await request(app).get('/both').expect(404);
      await request(app).get('/one').expect(200);
    });

    it('works as router-level middleware and sets req.vane without vane.middleware()', async () => {
      const app = makeApp();
      app.use('/beta', vane.requireFlag('beta'));
      app.use('/new', vane.requireFlag('new-checkout'));
      app.get('/beta/x', (_req, res) => res.json({}));
      app.get('/new/x', (req, res) => res.json({ poolMax: req.vane.config('db.pool.max') }));
      await request(app).get('/beta/x').expect(404);
      expect((await request(app).get('/new/x').expect(200)).body).toEqual({ poolMax: 10 });
    });

    it.each([
      ['an empty key', () => vane.requireFlag('')],
      ['an empty list', () => vane.requireFlag([])],
      ['a key with spaces', () => vane.requireFlag('a b')],
      ['a status that is not a status', () => vane.requireFlag('beta', { status: 700 })],
      ['ab without an abContext option', () => vane.requireFlag('beta', { ab: true })],
    ])('refuses %s at once with VANE_INVALID_ARGUMENT', (_case, make) => {
      expect(make).toThrow(expect.objectContaining({ code: 'VANE_INVALID_ARGUMENT' }));
    });
  });

  describe('A/B flags', () => {
    let fx: VaneFixture;
    let vane: VaneExpress;
    let contexts: number;

    beforeEach(async () => {
      contexts = 0;
      fx = await startFixture({
        abContext: async (req) => {
          contexts += 1;
          return headerContext(req);
        },
      });
      vane = fx.vane;
    });
    afterEach(() => fx.close());

    it("evaluates the flag for the request's user: in the cohort → through, else 404", async () => {
      const app = makeApp();
      app.get('/pricing', vane.requireFlag('new-pricing', { ab: true }), (_req, res) => res.json({ pricing: 'new' }));
      expect(
        (await request(app).get('/pricing').set({ 'x-user-id': 'u-1', 'x-country': 'DE' }).expect(200)).body,
      ).toEqual({ pricing: 'new' });
      await request(app).get('/pricing').set({ 'x-user-id': 'u-1', 'x-country': 'US' }).expect(404);
      expect(fx.http.count(EVALUATE_AB)).toBe(2);
    });

    it("a returning user costs no call: guards and req.vane.ab() share the client's answers until a rule changes", async () => {
      const app = makeApp();
      app.use(vane.middleware());
      app.get('/pricing', vane.requireFlag('new-pricing', { ab: true }), (_req, res) => res.json({ pricing: 'new' }));
      app.get('/ab', (req, res, next) => void req.vane.ab('new-pricing').then((on) => res.json({ on }), next));
      const german = { 'x-user-id': 'u-9', 'x-country': 'DE' };
      await request(app).get('/pricing').set(german).expect(200);
      await request(app).get('/pricing').set(german).expect(200);
      expect((await request(app).get('/ab').set(german).expect(200)).body).toEqual({ on: true });
      expect(fx.http.count(EVALUATE_AB)).toBe(1);
      expect(vane.client.abCacheStats).toMatchObject({ hits: 2, misses: 1 });

      // Only the rule changes (France only): a new revision, so the next request asks again.
      const applied = waitForChange(vane.client, (e) => e.key === 'pricing.rule.changed');
      fx.server.admin.setFlag('shop', 'new-pricing', {
        is_enabled: true,
        ab: {
          percentage: 0,
          salt: 'np-1',
          cohorts: [{ conditions: [{ attribute: 'country', op: 'in', values: ['FR'] }], percentage: 100 }],
        },
      });
      fx.server.admin.setConfig('shop', 'pricing.rule.changed', true); // patches apply in order
      await applied;
      await request(app).get('/pricing').set(german).expect(404);
      expect(fx.http.count(EVALUATE_AB)).toBe(2);
    });

    it('sends ALL the A/B guards of a route in ONE evaluate-ab call per request', async () => {
      const app = makeApp();
      app.get(
        '/three',
        vane.requireFlag('new-pricing', { ab: true }),
        vane.requireFlag('dark-mode', { ab: true }),
        vane.requireFlag('big-banner', { ab: true }),
        (req, res) => void req.vane.ab(['new-pricing', 'dark-mode']).then((r) => res.json({ ...r })),
      );
      const before = fx.http.count(EVALUATE_AB);
      const spy = jest.spyOn(vane.client, 'evaluateAb');
      const res = await request(app)
        .get('/three')
        .set({ 'x-user-id': 'u-7', 'x-country': 'FR', 'x-plan': 'pro' })
        .expect(200);
      expect(res.body).toEqual({ 'new-pricing': true, 'dark-mode': true });
      expect(fx.http.count(EVALUATE_AB) - before).toBe(1);
      expect(spy).toHaveBeenCalledTimes(1);
      expect(spy.mock.calls[0]![0]).toEqual(['new-pricing', 'dark-mode', 'big-banner']);
      expect(contexts).toBe(1);

      // The second guard's flag is off for this user: still one call, and the route answers 404.
      await request(app).get('/three').set({ 'x-user-id': 'u-7', 'x-country': 'FR', 'x-plan': 'free' }).expect(404);
      expect(fx.http.count(EVALUATE_AB) - before).toBe(2);
    });

    it('batches a route-level list, and guards given as an array, the same way', async () => {
      const app = makeApp();
      app.get('/list', vane.requireFlag(['new-pricing', 'big-banner'], { ab: true }), (_req, res) =>
        res.json({ ok: true }),
      );
      app.get(
        '/array',
        [vane.requireFlag('new-pricing', { ab: true }), vane.requireFlag('big-banner', { ab: true })],
        (_req: Request, res: Response) => res.json({ ok: true }),
      );
      await request(app).get('/list').set({ 'x-user-id': 'u-list', 'x-country': 'DE' }).expect(200);
      await request(app).get('/array').set({ 'x-user-id': 'u-array', 'x-country': 'DE' }).expect(200);
      expect(fx.http.count(EVALUATE_AB)).toBe(2);
    });

    it("shares the route's evaluation with req.vane.ab() in an earlier middleware", async () => {
      const seen: boolean[] = [];
      const withMiddleware = makeApp();
      withMiddleware.use(vane.middleware());
      withMiddleware.get(
        '/early',
        (req, _res, next) => void req.vane.ab('big-banner').then((on) => (seen.push(on), next()), next),
        vane.requireFlag('new-pricing', { ab: true }),
        (_req, res) => res.json({ ok: true }),
      );
      await request(withMiddleware).get('/early').set({ 'x-user-id': 'u', 'x-country': 'DE' }).expect(200);
      expect(seen).toEqual([true]);
      expect(fx.http.count(EVALUATE_AB)).toBe(1);
    });

    it("evaluates only the A/B guards of the request's method", async () => {
      const app = makeApp();
      app
        .route('/m')
        .get(vane.requireFlag('big-banner', { ab: true }), (_req, res) => res.json({ method: 'get' }))
        .post(vane.requireFlag('new-pricing', { ab: true }), (_req, res) => res.json({ method: 'post' }));
      const spy = jest.spyOn(vane.client, 'evaluateAb');
      await request(app).get('/m').set({ 'x-user-id': 'u' }).expect(200);
      expect(spy).toHaveBeenCalledTimes(1);
      expect(spy.mock.calls[0]![0]).toEqual(['big-banner']);
    });

    it('sends nothing and treats every A/B flag as off when abContext returns null', async () => {
      const app = makeApp();
      app.get('/banner', vane.requireFlag('big-banner', { ab: true }), (_req, res) => res.json({}));
      await request(app).get('/banner').expect(404);
      expect(fx.http.count(EVALUATE_AB)).toBe(0);
    });

    it('never sends a key the snapshot does not define: 404 without a call', async () => {
      const app = makeApp();
      app.get(
        '/unknown',
        vane.requireFlag('no-such-flag', { ab: true, handler: (_q, res, _n, d) => void res.status(404).json(d) }),
        (_req, res) => res.json({}),
      );
      expect((await request(app).get('/unknown').set({ 'x-user-id': 'u' }).expect(404)).body).toEqual({
        key: 'no-such-flag',
        reason: 'undefined',
        ab: true,
      });
      expect(fx.http.count(EVALUATE_AB)).toBe(0);
    });

    it('with a synchronous abContext, a returning user is let through at once: no evaluateAb promise, no call', async () => {
      await fx.close();
      fx = await startFixture({ abContext: headerContext });
      const app = makeApp();
      app.use(fx.vane.middleware());
      app.get('/pricing', fx.vane.requireFlag('new-pricing', { ab: true }), (_req, res) =>
        res.json({ pricing: 'new' }),
      );
      app.get('/ab', (req, res, next) => void req.vane.ab('new-pricing').then((on) => res.json({ on }), next));
      const german = { 'x-user-id': 'u-9', 'x-country': 'DE' };
      await request(app).get('/pricing').set(german).expect(200);
      const asked = jest.spyOn(fx.vane.client, 'evaluateAb');
      await request(app).get('/pricing').set(german).expect(200, { pricing: 'new' });
      expect((await request(app).get('/ab').set(german).expect(200)).body).toEqual({ on: true });
      await request(app).get('/pricing').set({ 'x-user-id': 'u-9', 'x-country': 'US' }).expect(404);
      expect(asked).toHaveBeenCalledTimes(1); // the new attributes only
      expect(fx.http.count(EVALUATE_AB)).toBe(2);
      expect(fx.vane.client.abCacheStats).toMatchObject({ hits: 2, misses: 2 });
    });

    it('fails closed on an invalid context (the flag is off), logging the attribute once, sending nothing', async () => {
      await fx.close();
      const logged: string[] = [];
      fx = await startFixture({
        abContext: (req) => ({
          userId: 'u-1',
          attributes: { country: req.get('x-country'), seats: Number(req.get('x-seats')) as unknown as string },
        }),
        logger: { warn: (m) => logged.push(m), error: (m) => logged.push(m) },
      });
      const app = makeApp();
      app.get('/pricing', fx.vane.requireFlag('new-pricing', { ab: true }), (_req, res) => res.json({}));
      app.use(fx.vane.errorHandler());
      const res = await request(app).get('/pricing').set({ 'x-country': 'DE', 'x-seats': '31337' }).expect(404);
      expect(res.text).not.toMatch(/seats|31337|country|DE/);
      expect(fx.http.count(EVALUATE_AB)).toBe(0);
      // The details are for the logs.
      expect(logged).toEqual([
        expect.stringMatching(
          /A\/B evaluation of "new-pricing" failed \(VANE_INVALID_ARGUMENT\), treating them as off: .*attribute "seats" must be a string, got number/,
        ),
      ]);
    });

    it('fails closed when abContext itself throws (the rule of every adapter): 404, one warning', async () => {
      await fx.close();
      const logged: string[] = [];
      fx = await startFixture({
        logger: { warn: (m) => void logged.push(m), error: (m) => void logged.push(m) },
        abContext: () => {
          throw new TypeError('session store down');
        },
      });
      const app = makeApp();
      app.get('/pricing', fx.vane.requireFlag('new-pricing', { ab: true }), (_req, res) => res.json({}));
      app.use(fx.vane.errorHandler());
      app.use(showError);
      await request(app).get('/pricing').expect(404);
      expect(logged.filter((m) => m.includes('abContext failed'))).toHaveLength(1);
      expect(fx.http.count(EVALUATE_AB)).toBe(0);
    });

    it('fails closed when the evaluation fails (A/B add-on off): the flag is off, one warning names the code', async () => {
      await fx.close();
      const logged: string[] = [];
      fx = await startFixture({
        abContext: (req) => ({ userId: req.get('x-user-id') ?? 'anonymous' }),
        logger: { warn: (m) => logged.push(m), error: (m) => logged.push(m) },
      });
      const app = makeApp();
      app.get('/pricing', fx.vane.requireFlag('new-pricing', { ab: true }), (_req, res) => res.json({}));
      app.use(fx.vane.errorHandler({ logger: false }));
      fx.server.admin.setTenant({ ab_addon: false });
      await request(app).get('/pricing').set({ 'x-user-id': 'u' }).expect(404);
      expect(logged).toEqual([
        expect.stringMatching(
          /A\/B evaluation of "new-pricing" failed \(VANE_ADDON_NOT_AVAILABLE\), treating them as off/,
        ),
      ]);
    });

    it('req.vane.ab() without an abContext option rejects with VANE_INVALID_ARGUMENT', async () => {
      await fx.close();
      fx = await startFixture();
      const app = makeApp();
      app.use(fx.vane.middleware());
      app.get('/ab', (req, res, next) => void req.vane.ab('big-banner').then((on) => res.json({ on }), next));
      app.use(fx.vane.errorHandler({ logger: false }));
      expect((await request(app).get('/ab').expect(500)).body).toMatchObject({ code: 'VANE_INVALID_ARGUMENT' });
    });
  });
});
