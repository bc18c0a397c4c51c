import type { AbContext } from '@vane/client';
import vane, { type FlagDenial } from '@vane/fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { FASTIFY_VERSIONS, type AppFactory } from './support/fastify-versions.js';
import { keptLogger, startServer, type ServerFixture } from './support/vane-fixture.js';
import { waitForChange } from '@vane/server/testing';

const EVALUATE_AB = '/v1/flags/evaluate-ab';

/** A/B context from headers, as an app would take it from its session. */
function headerContext(request: FastifyRequest): AbContext | null {
  const userId = request.headers['x-user-id'];
  if (typeof userId !== 'string') return null;
  const header = (name: string) => (typeof request.headers[name] === 'string' ? request.headers[name] : undefined);
  return { userId, attributes: { country: header('x-country'), plan: header('x-plan') } };
}

describe.each(FASTIFY_VERSIONS)('flag guards on %s', (_name, makeApp: AppFactory) => {
  let fx: ServerFixture;
  let app: FastifyInstance;

  beforeEach(async () => {
    fx = await startServer();
    app = makeApp();
  });
  afterEach(async () => {
    await app.close();
    await fx.close();
  });

  describe('plain flags', () => {
    beforeEach(() => app.register(vane, fx.options({ logger: keptLogger() })));

    it('lets the request through when the flag is on, as a route option or a preHandler', async () => {
      app.get('/option', { config: { vane: { flags: 'new-checkout' } } }, async () => ({ checkout: 'new' }));
      app.get('/hook', { preHandler: app.vane.requireFlag('new-checkout') }, async () => ({ checkout: 'new' }));
      expect((await app.inject('/option')).json()).toEqual({ checkout: 'new' });
      expect((await app.inject('/hook')).json()).toEqual({ checkout: 'new' });
    });

    it.each([
      ['off', 'beta'],
      ['not defined', 'no-such-flag'],
    ])("answers Fastify's own 404 when the flag is %s: byte for byte what a path no route has", async (_case, key) => {
      const handler = jest.fn(async () => ({ reached: true }));
      app.get('/option', { config: { vane: { flags: key } } }, handler);
      app.get('/hook', { preHandler: app.vane.requireFlag(key) }, handler);
      app.get('/early', { onRequest: app.vane.requireFlag(key) }, handler);
      const absent = await app.inject('/nothere?page=2');
      expect(absent.statusCode).toBe(404);
      for (const path of ['/option', '/hook', '/early']) {
        const refused = await app.inject(`${path}?page=2`);
        expect(refused.statusCode).toBe(404);
        expect(refused.headers['content-type']).toBe(absent.headers['content-type']);
        expect(refused.body).toBe(absent.body.replace('/nothere', path));
        expect(refused.body).not.toContain(key);
      }
      expect(handler).not.toHaveBeenCalled();
    });

    it("answers with the scope's own not-found handler", async () => {
      app.setNotFoundHandler((request, reply) => void reply.code(404).send({ notFound: request.url }));
      app.get('/gated', { config: { vane: { flags: 'beta' } } }, async () => ({ reached: true }));
      expect((await app.inject('/gated')).json()).toEqual({ notFound: '/gated' });
      expect((await app.inject('/nothere')).json()).toEqual({ notFound: '/nothere' });
    });

    it('refuses a plain-flag route before its body is read or validated: 404, not 400', async () => {
      const schema = { body: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } };
      app.post('/gated', { schema, config: { vane: { flags: 'beta' } } }, async () => ({ reached: true }));
      app.post('/open', { schema }, async () => ({ reached: true }));
      expect((await app.inject({ method: 'POST', url: '/open', payload: { nope: 1 } })).statusCode).toBe(400);
      expect((await app.inject({ method: 'POST', url: '/gated', payload: { nope: 1 } })).statusCode).toBe(404);
    });

    it('changes its answer when the flag is flipped through the admin API, without a restart', async () => {
      app.get('/checkout', { config: { vane: { flags: 'new-checkout' } } }, async () => ({ checkout: 'new' }));
      expect((await app.inject('/checkout')).statusCode).toBe(200);
      const off = waitForChange(app.vane.client, (e) => e.key === 'new-checkout' && e.newValue === false);
      fx.server.admin.setFlag('shop', 'new-checkout', { is_enabled: false });
      await off;
      expect((await app.inject('/checkout')).statusCode).toBe(404);
      expect((await app.inject({ method: 'HEAD', url: '/checkout' })).statusCode).toBe(404);
      const on = waitForChange(app.vane.client, (e) => e.key === 'new-checkout' && e.newValue === true);
      fx.server.admin.setFlag('shop', 'new-checkout', { is_enabled: true });
      await on;
      expect((await app.inject('/checkout')).statusCode).toBe(200);
      expect((await app.inject({ method: 'HEAD', url: '/checkout' })).statusCode).toBe(200);
    });

    it('answers a configured status, hands the denial to a handler, or passes an error to the error handling', async () => {
      const denials: FlagDenial[] = [];
      app.get('/status', { config: { vane: { flags: 'beta', status: 403 } } }, async () => ({}));
      app.get(
        '/handler',
        {
          preHandler: app.vane.requireFlag(['new-checkout', 'no-such-flag'], {
            handler: (_request, reply, denial) => void reply.code(418).send({ denial: (denials.push(denial), denial) }),
          }),
        },
        async () => ({}),
      );
      app.get(
        '/error',
        {
          config: {
            vane: {
              flags: 'beta',
              error: (d) => Object.assign(new Error(`feature ${d.key} is off`), { statusCode: 451 }),
            },
          },
        },
        async () => ({}),
      );
      expect((await app.inject('/status')).json()).toEqual({ statusCode: 403, message: 'Forbidden' });
      const handled = await app.inject('/handler');
      expect(handled.statusCode).toBe(418);
      expect(denials).toEqual([{ key: 'no-such-flag', reason: 'undefined', ab: false }]);
      // Not a Vane error: Fastify's own error handling answers it, with its statusCode.
      const error = await app.inject('/error');
      expect(error.statusCode).toBe(451);
      expect(error.json()).toMatchObject({ statusCode: 451, message: 'feature beta is off' });
    });

    it('requires every flag of a list, and every requirement of an array', async () => {
      app.get('/both', { config: { vane: { flags: ['new-checkout', 'beta'] } } }, async () => ({}));
      app.get('/one', { config: { vane: { flags: ['new-checkout'] } } }, async () => ({}));
      app.get('/array', { config: { vane: [{ flags: 'new-checkout' }, { flags: 'beta' }] } }, async () => ({}));
      expect((await app.inject('/both')).statusCode).toBe(404);
      expect((await app.inject('/one')).statusCode).toBe(200);
      expect((await app.inject('/array')).statusCode).toBe(404);
    });

    it('guards a whole encapsulated scope with addHook, and sets request.vane there', async () => {
      await app.register(
        async (scope) => {
          scope.addHook('onRequest', scope.vane.requireFlag('beta'));
          scope.get('/x', async () => ({}));
        },
        { prefix: '/beta' },
      );
      await app.register(
        async (scope) => {
          scope.addHook('onRequest', scope.vane.requireFlag('new-checkout'));
          scope.get('/x', async (request) => ({ poolMax: request.vane.config('db.pool.max') }));
        },
        { prefix: '/new' },
      );
      expect((await app.inject('/beta/x')).statusCode).toBe(404);
      expect((await app.inject('/new/x')).json()).toEqual({ poolMax: 10 });
    });

    it.each([
      ['an empty key', () => app.vane.requireFlag('')],
      ['an empty list', () => app.vane.requireFlag([])],
      ['a key with spaces', () => app.vane.requireFlag('a b')],
      ['a status that is not a status', () => app.vane.requireFlag('beta', { status: 700 })],
      ['ab without an abContext option', () => app.vane.requireFlag('beta', { ab: true })],
      [
        'a route option with a bad key',
        () => app.get('/bad', { config: { vane: { flags: 'a b' } } }, async () => ({})),
      ],
      [
        'an A/B route option without an abContext option',
        () => app.get('/ab', { config: { vane: { flags: 'new-pricing', ab: true } } }, async () => ({})),
      ],
    ])('refuses %s at once (registration) with VANE_INVALID_ARGUMENT', async (_case, make) => {
      await app.after();
      expect(make).toThrow(expect.objectContaining({ code: 'VANE_INVALID_ARGUMENT' }));
    });
  });

  describe('A/B flags', () => {
    let contexts: number;

    beforeEach(async () => {
      contexts = 0;
      await app.register(
        vane,
        fx.options({
          logger: keptLogger(),
          abContext: async (request) => {
            contexts += 1;
            return headerContext(request);
          },
        }),
      );
    });

    it("evaluates the flag for the request's user: in the cohort → through, else 404", async () => {
      app.get('/pricing', { config: { vane: { flags: 'new-pricing', ab: true } } }, async () => ({ pricing: 'new' }));
      const de = await app.inject({ url: '/pricing', headers: { 'x-user-id': 'u-1', 'x-country': 'DE' } });
      expect(de.json()).toEqual({ pricing: 'new' });
      const us = await app.inject({ url: '/pricing', headers: { 'x-user-id': 'u-1', 'x-country': 'US' } });
      expect(us.statusCode).toBe(404);
      expect(fx.http.count(EVALUATE_AB)).toBe(2);
    });

    it('sends ALL the A/B flags of a route, and request.vane.ab(), in ONE evaluate-ab call per request', async () => {
      app.get(
        '/three',
        {
          config: {
            vane: [
              { flags: 'new-pricing', ab: true },
              { flags: 'dark-mode', ab: true },
            ],
          },
          preHandler: app.vane.requireFlag('big-banner', { ab: true }),
        },
        async (request) => ({ ...(await request.vane.ab(['new-pricing', 'dark-mode'])) }),
      );
      const spy = jest.spyOn(app.vane.client, 'evaluateAb');
      const headers = { 'x-user-id': 'u-7', 'x-country': 'FR', 'x-plan': 'pro' };
      const res = await app.inject({ url: '/three', headers });
      expect(res.json()).toEqual({ 'new-pricing': true, 'dark-mode': true });
      expect(fx.http.count(EVALUATE_AB)).toBe(1);
      expect(spy).toHaveBeenCalledTimes(1);
      expect([...spy.mock.calls[0]![0]].sort()).toEqual(['big-banner', 'dark-mode', 'new-pricing']);
      expect(contexts).toBe(1);
      // The second flag is off for this user: still one call, and the route answers 404.
      const free = await app.inject({ url: '/three', headers: { ...headers, 'x-plan': 'free' } });
      expect(free.statusCode).toBe(404);
      expect(fx.http.count(EVALUATE_AB)).toBe(2);
    });

    it("shares the route's evaluation with request.vane.ab() in an earlier hook", async () => {
      const seen: boolean[] = [];
      app.get(
        '/early',
        {
          onRequest: async (request) => void seen.push(await request.vane.ab('big-banner')),
          preHandler: app.vane.requireFlag('new-pricing', { ab: true }),
        },
        async () => ({ ok: true }),
      );
      const res = await app.inject({ url: '/early', headers: { 'x-user-id': 'u', 'x-country': 'DE' } });
      expect(res.json()).toEqual({ ok: true });
      expect(seen).toEqual([true]);
      expect(fx.http.count(EVALUATE_AB)).toBe(1);
    });

    it("runs after the route's own preHandlers: abContext sees what authentication left", async () => {
      await app.close();
      app = makeApp();
      app.decorateRequest('user', null);
      await app.register(
        vane,
        fx.options({
          abContext: (request) => {
            const user = (request as FastifyRequest & { user: { id: string; country: string } | null }).user;
            return user ? { userId: user.id, attributes: { country: user.country } } : null;
          },
        }),
      );
      app.get(
        '/pricing',
        {
          preHandler: async (request) => {
            (request as FastifyRequest & { user: unknown }).user = { id: 'u-1', country: 'DE' };
          },
          config: { vane: { flags: 'new-pricing', ab: true } },
        },
        async () => ({ pricing: 'new' }),
      );
      expect((await app.inject('/pricing')).json()).toEqual({ pricing: 'new' });
    });

    it('sends nothing and treats every A/B flag as off for an anonymous request (abContext returns null)', async () => {
      app.get('/banner', { config: { vane: { flags: 'big-banner', ab: true } } }, async () => ({}));
      expect((await app.inject('/banner')).statusCode).toBe(404);
      expect(fx.http.count(EVALUATE_AB)).toBe(0);
    });

    it("answers with the scope's not-found handler when an A/B flag is off", async () => {
      app.setNotFoundHandler((request, reply) => void reply.code(404).send({ notFound: request.url }));
      app.get('/banner', { config: { vane: { flags: 'big-banner', ab: true } } }, async () => ({}));
      expect((await app.inject('/banner')).json()).toEqual({ notFound: '/banner' });
    });

    it('never sends a key the snapshot does not define: refused without a call, reason "undefined"', async () => {
      app.get(
        '/unknown',
        {
          preHandler: app.vane.requireFlag('no-such-flag', {
            ab: true,
            handler: (_request, reply, denial) => void reply.code(404).send(denial),
          }),
        },
        async () => ({}),
      );
      const res = await app.inject({ url: '/unknown', headers: { 'x-user-id': 'u' } });
      expect(res.json()).toEqual({ key: 'no-such-flag', reason: 'undefined', ab: true });
      expect(fx.http.count(EVALUATE_AB)).toBe(0);
    });
  });

  describe('A/B flags fail closed', () => {
    async function register(abContext: (request: FastifyRequest) => AbContext | null) {
      const logger = keptLogger();
      await app.register(vane, fx.options({ logger, abContext }));
      app.get('/pricing', { config: { vane: { flags: 'new-pricing', ab: true } } }, async () => ({ reached: true }));
      return logger.lines;
    }

    it('on a context the client refuses (an attribute that is not a string): off, one warning, nothing sent', async () => {
      const logged = await register((request) => ({
        userId: 'u-1',
        attributes: { country: 'DE', seats: Number(request.headers['x-seats']) as unknown as string },
      }));
      const res = await app.inject({ url: '/pricing', headers: { 'x-seats': '31337' } });
      expect(res.statusCode).toBe(404);
      expect(res.body).not.toMatch(/seats|31337|country/);
      expect(fx.http.count(EVALUATE_AB)).toBe(0);
      expect(logged).toEqual([
        expect.stringMatching(
          /^warn A\/B evaluation of "new-pricing" failed \(VANE_INVALID_ARGUMENT\), treating them as off: .*attribute "seats" must be a string, got number/,
        ),
      ]);
    });

    it('when abContext itself throws: off, one warning naming the error, nothing sent', async () => {
      const logged = await register(() => {
        throw new TypeError('session store down');
      });
      expect((await app.inject('/pricing')).statusCode).toBe(404);
      expect(fx.http.count(EVALUATE_AB)).toBe(0);
      expect(logged).toEqual([
        'warn abContext failed, treating the request as anonymous (its A/B flags are off): session store down',
      ]);
    });

    it('when the evaluation fails (A/B add-on off): off, one warning naming the code', async () => {
      const logged = await register((request) => ({ userId: String(request.headers['x-user-id'] ?? 'anonymous') }));
      fx.server.admin.setTenant({ ab_addon: false });
      expect((await app.inject({ url: '/pricing', headers: { 'x-user-id': 'u' } })).statusCode).toBe(404);
      expect(logged).toEqual([
        expect.stringMatching(
          /^warn A\/B evaluation of "new-pricing" failed \(VANE_ADDON_NOT_AVAILABLE\), treating them as off/,
        ),
      ]);
    });

    it('request.vane.ab() without an abContext option rejects with VANE_INVALID_ARGUMENT: a 500 from the error handler', async () => {
      await app.register(vane, fx.options({ logger: keptLogger() }));
      app.get('/ab', async (request) => ({ on: await request.vane.ab('big-banner') }));
      const res = await app.inject('/ab');
      expect(res.statusCode).toBe(500);
      expect(res.json()).toMatchObject({ code: 'VANE_INVALID_ARGUMENT' });
    });
  });
});
