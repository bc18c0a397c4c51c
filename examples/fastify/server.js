// The README's Fastify quick start for Fastify 4 in CommonJS, whole (the region is the file a reader
// pastes). `npm run test:newcomer` runs it in a fresh Fastify 4 app made from the README.
// #region fastify4-cjs
const Fastify = require('fastify');
const { vane } = require('@vane/fastify');

/** The app on the Vane service `vaneOptions` name: `main` below reads it from the environment. */
async function buildApp(vaneOptions, fastifyOptions = { logger: true }) {
  const app = Fastify(fastifyOptions); // Vane logs through Fastify's logger (pino)
  // The blocking initial sync: every value in memory before the app listens, or an error that says why.
  await app.register(vane, vaneOptions);

  // Behind a flag: 404 while `new-checkout` is off. Flip it and the next request sees it, no restart.
  app.get('/checkout', { preHandler: app.vane.requireFlag('new-checkout') }, async () => ({ checkout: 'new' }));
  // A live config read: request.vane on every request, synchronous.
  app.get('/greeting', async (request) => ({ greeting: request.vane.config('greeting.text', 'Hello') }));
  // A secret: use it, never send it back (a missing one is a clean JSON 500).
  app.get('/payments', async (request) => ({
    stripeConfigured: request.vane.requireSecret('stripe.api_key').length > 0,
  }));
  return app;
}

async function main() {
  const app = await buildApp({ baseUrl: process.env.VANE_BASE_URL, apiKey: process.env.VANE_API_KEY });
  // Every change as it arrives from the service's stream.
  app.vane.client.onChange((e) => console.log(`vane: ${e.kind} ${e.key} changed (revision ${e.revision})`));
  await app.listen({ port: Number(process.env.PORT ?? 3000) });
  console.log(`listening on http://localhost:${app.server.address().port}`);
  // SIGTERM: stop accepting connections, finish requests in flight, then close Vane (stream, timers, files).
  process.once('SIGTERM', () => void app.close());
}

module.exports = { buildApp };

// `node server.js` starts the app; a test that requires this file gets `buildApp` alone.
if (require.main === module) {
  main().catch((err) => {
    console.error(err.message); // e.g. VANE_UNAUTHORIZED: the key is not valid for this service
    process.exitCode = 1;
  });
}
// #endregion fastify4-cjs
