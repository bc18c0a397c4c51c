import vane from '@vane/fastify';
import type { FastifyInstance } from 'fastify';
import { OtelSdk } from '../../client/test/helpers/otel-sdk.js';
import { FASTIFY_VERSIONS, type AppFactory } from './support/fastify-versions.js';
import { keptLogger, startServer, type ServerFixture } from './support/vane-fixture.js';

describe.each(FASTIFY_VERSIONS)(
  'requireFlag decisions as feature_flag.evaluation events on %s',
  (_name, makeApp: AppFactory) => {
    let sdk: OtelSdk;
    let fx: ServerFixture;
    let app: FastifyInstance;

    beforeEach(async () => {
      sdk = OtelSdk.install();
      fx = await startServer();
      app = makeApp();
      // The request's span, as HTTP instrumentation opens it: the hooks after this one run inside it.
      app.addHook('onRequest', (request, reply, done) => {
        sdk.tracerProvider.getTracer('http').startActiveSpan(`${request.method} ${request.url}`, (span) => {
          reply.raw.on('finish', () => span.end());
          done();
        });
      });
      await app.register(vane, fx.options({ logger: keptLogger() }));
    });
    afterEach(async () => {
      await app.close();
      await fx.close();
      await sdk.uninstall();
    });

    it('one event per flag the guard read, with its value, reason and revision', async () => {
      app.get('/gated', { preHandler: app.vane.requireFlag(['new-checkout', 'beta']) }, async () => ({ ok: true }));
      expect((await app.inject('/gated')).statusCode).toBe(404);
      const span = sdk.spans().find((s) => s.name === 'GET /gated')!;
      expect(span.events.map((e) => e.attributes)).toEqual([
        expect.objectContaining({ 'feature_flag.key': 'new-checkout', 'feature_flag.result.reason': 'static' }),
        expect.objectContaining({
          'feature_flag.key': 'beta',
          'feature_flag.result.value': false,
          'feature_flag.result.reason': 'disabled',
          'feature_flag.provider.name': 'vane',
          'feature_flag.version': String(app.vane.client.revision),
        }),
      ]);
    });
  },
);
