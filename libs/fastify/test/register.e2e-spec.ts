import { existsSync } from 'node:fs';
import { VaneClient } from '@vane/client';
import vane from '@vane/fastify';
import type { FastifyInstance } from 'fastify';
import type { Dispatcher } from 'undici';
import { FASTIFY_VERSIONS, type AppFactory } from './support/fastify-versions.js';
import { keptLogger, logStream, startServer, type ServerFixture } from './support/vane-fixture.js';
import { ADAPTER_KEYS, ADAPTER_SECRET_VALUES } from '@vane/test-harness';

/** No API key and no secret value in a text that leaves the app (a log, an answer). */
function expectNoLeak(text: string): void {
  expect(text).not.toContain(ADAPTER_KEYS.secret);
  expect(text).not.toContain(ADAPTER_SECRET_VALUES.stripe);
  expect(text).not.toContain(ADAPTER_SECRET_VALUES.pemV2);
}

describe.each(FASTIFY_VERSIONS)('app.register(vane) on %s', (_name, makeApp: AppFactory) => {
  let fx: ServerFixture;
  const apps: FastifyInstance[] = [];
  const track = (app: FastifyInstance) => (apps.push(app), app);

  beforeEach(async () => {
    fx = await startServer();
  });
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
    await fx.close();
  });

  it('runs the blocking initial sync during register: every value in memory before the first request', async () => {
    const app = track(makeApp());
    await app.register(vane, fx.options());
    expect(fx.http.count('/v1/sync')).toBe(1);
    expect(app.vane.client.config('db.host')).toBe('localhost');
    expect(app.vane.status.mode).toBeDefined();
    app.get('/read', async (request) => ({
      host: request.vane.config('db.host'),
      poolMax: request.vane.config('db.pool.max', 1),
      checkout: request.vane.flag('new-checkout'),
      beta: request.vane.flagState('beta'),
      stripe: request.vane.secret('stripe.api_key') === ADAPTER_SECRET_VALUES.stripe,
      pem: existsSync(request.vane.requireSecretFile('tls.client_pem')),
      missing: request.vane.secret('no.such.secret'),
    }));
    expect((await app.inject('/read')).json()).toEqual({
      host: 'localhost',
      poolMax: 10,
      checkout: true,
      beta: { defined: true, active: false },
      stripe: true,
      pem: true,
      missing: null,
    });
  });

  it.each([
    ['a wrong key', { apiKey: 'svs_shop_wrong_key_1234567890' }, 'VANE_UNAUTHORIZED', /What to do: wrong key/],
    ['a wrong slug', 'slug', 'VANE_NOT_FOUND', /What to do: wrong slug/],
    ['an unreachable service', { baseUrl: 'http://127.0.0.1:9' }, 'VANE_TRANSPORT', /What to do: unreachable/],
  ] as const)(
    'with %s, fails the start with the typed error and logs the same fix-it line as the other adapters',
    async (_case, change, code, hint) => {
      const log = logStream();
      const app = track(makeApp({ logger: { level: 'info', stream: log.stream } }));
      const options =
        change === 'slug'
          ? fx.options({ baseUrl: fx.server.baseUrl('shop').replace('shop.', 'nope.') })
          : fx.options(change);
      await expect(app.register(vane, options)).rejects.toMatchObject({ code });
      await expect(app.ready()).rejects.toMatchObject({ code });
      const errors = log.entries().filter((e) => e.level === 50);
      expect(errors.map((e) => e.msg)).toEqual([
        expect.stringContaining(`initial sync failed, the app cannot start (${code})`),
      ]);
      expect(errors[0]!.msg).toMatch(hint);
      expectNoLeak(log.text());
      expect(log.text()).not.toContain('svs_shop_wrong_key_1234567890');
    },
  );

  it("logs through Fastify's logger (pino) by default, naming no key or secret value", async () => {
    const log = logStream();
    const app = track(makeApp({ logger: { level: 'debug', stream: log.stream } }));
    await app.register(vane, fx.options());
    app.get('/typo', { config: { vane: { flags: 'no-such-flag' } } }, async () => ({}));
    await app.ready();
    const warnings = log.entries().filter((e) => e.level === 40);
    expect(warnings).toEqual([
      expect.objectContaining({
        name: 'vane',
        msg: expect.stringMatching(
          /^unknown flag "no-such-flag" in GET \/typo: the snapshot of "shop" has no such flag/,
        ),
      }),
    ]);
    expect(log.entries().some((e) => e.level === 20)).toBe(true); // the client's debug lines go there too
    expectNoLeak(log.text());
  });

  it('reports at startup the flag keys routes name that the snapshot does not define; startupCheck: off does not', async () => {
    const logger = keptLogger();
    const app = track(makeApp());
    await app.register(vane, fx.options({ logger }));
    app.get('/a', { config: { vane: [{ flags: 'new-checkout' }, { flags: 'typo-one' }] } }, async () => ({}));
    app.get('/b', { preHandler: app.vane.requireFlag(['typo-one', 'typo-two']) }, async () => ({}));
    app.addHook('onRequest', app.vane.requireFlag('typo-three'));
    await app.ready();
    expect(logger.lines).toEqual([
      expect.stringMatching(/^warn unknown flag "typo-one" in GET \/a, GET \/b: /),
      expect.stringMatching(/^warn unknown flag "typo-two" in GET \/b: /),
      expect.stringMatching(/^warn unknown flag "typo-three" in a requireFlag\(\) hook: /),
    ]);

    const quiet = keptLogger();
    const off = track(makeApp());
    await off.register(vane, fx.options({ logger: quiet, startupCheck: 'off' }));
    off.get('/a', { config: { vane: { flags: 'typo-one' } } }, async () => ({}));
    await off.ready();
    expect(quiet.lines).toEqual([]);
  });

  it('closes the client it made when the app closes: stream, timers, file secrets', async () => {
    const app = makeApp();
    await app.register(vane, fx.options());
    const client = app.vane.client;
    const pem = client.requireSecretFile('tls.client_pem');
    expect(existsSync(pem)).toBe(true);
    await app.close();
    expect(client.closed).toBe(true);
    expect(existsSync(pem)).toBe(false);
  });

  it('takes a client of yours instead of options, and leaves it open unless closeClient is true', async () => {
    const client = await VaneClient.create(fx.options());
    try {
      const app = makeApp();
      await app.register(vane, { client });
      expect(app.vane.client).toBe(client);
      app.get('/flag', async (request) => ({ on: request.vane.flag('new-checkout') }));
      expect((await app.inject('/flag')).json()).toEqual({ on: true });
      await app.close();
      expect(client.closed).toBe(false);

      const closing = makeApp();
      await closing.register(vane, { client, closeClient: true });
      await closing.close();
      expect(client.closed).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('respects encapsulation: registered in a scope, it decorates that scope only; two services side by side', async () => {
    const app = track(makeApp());
    await app.register(async (shop) => {
      await shop.register(vane, fx.options());
      shop.get('/shop', async (request) => ({ host: request.vane.config('db.host') }));
    });
    await app.register(async (web) => {
      await web.register(vane, fx.options({ baseUrl: fx.server.baseUrl('web'), apiKey: ADAPTER_KEYS.webSecret }));
      web.get('/web', async (request) => ({ theme: request.vane.config('ui.theme') }));
    });
    app.get('/outside', async (request) => ({ vane: request.vane === undefined ? 'none' : 'set' }));
    await app.ready();
    expect(app.hasDecorator('vane')).toBe(false);
    expect((await app.inject('/shop')).json()).toEqual({ host: 'localhost' });
    expect((await app.inject('/web')).json()).toEqual({ theme: 'dark' });
    expect((await app.inject('/outside')).json()).toEqual({ vane: 'none' });
  });

  it('refuses bad options with VANE_INVALID_ARGUMENT before any request', async () => {
    for (const bad of [
      { abContext: 'user' },
      { flagOff: { status: 99 } },
      { startupCheck: 'throw' },
      { baseUrl: 'not a url' },
    ]) {
      const app = track(makeApp());
      await expect(app.register(vane, fx.options(bad as never))).rejects.toMatchObject({
        code: 'VANE_INVALID_ARGUMENT',
      });
    }
    expect(fx.http.requests).toEqual([]);
  });

  it("closes a client whose initial sync ended after Fastify's pluginTimeout, instead of leaking it", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // Holds every request of the client until the start has timed out.
    const held: Dispatcher = fx.http.dispatcher.compose((dispatch) => (options, handler) => {
      void gate.then(() => dispatch(options, handler));
      return true;
    });
    let closed!: (closing: Promise<void>) => void;
    const closedOnce = new Promise<void>((resolve) => (closed = resolve));
    const close = VaneClient.prototype.close;
    const spy = jest.spyOn(VaneClient.prototype, 'close').mockImplementation(function (this: VaneClient) {
      const closing = close.call(this);
      closed(closing);
      return closing;
    });
    try {
      const logger = keptLogger();
      const app = track(makeApp({ pluginTimeout: 100 }));
      void app.register(vane, fx.options({ dispatcher: held, logger }));
      await expect(app.ready()).rejects.toThrow(/timed? ?out|did not start in time/i);
      release();
      await closedOnce; // resolved with the close() promise: settles once the client is closed
      expect(logger.lines).toEqual([
        expect.stringMatching(/longer than Fastify's pluginTimeout \(100 ms\): raise pluginTimeout/),
      ]);
    } finally {
      spy.mockRestore();
    }
  });
});
