// The README's Fastify quick start for Fastify 5 as an ES module, whole (the region is the file a reader
// pastes). `npm run test:newcomer` runs it in a fresh Fastify 5 app made from the README, and its test,
// server.test.mjs, beside it.
// #region fastify5-esm
import { realpathSync } from 'node:fs';
import Fastify from 'fastify';
import vane from '@vane/fastify';

/** The app on the Vane service `vaneOptions` name: below, from the environment; in a test, the local server. */
export async function buildApp(vaneOptions, fastifyOptions = { logger: true }) {
  const app = Fastify(fastifyOptions); // Vane logs through Fastify's logger (pino)
  // The blocking initial sync: every value in memory before the app listens, or an error that says why.
  await app.register(vane, vaneOptions);

  // Behind a flag: 404 while `new-checkout` is off. Flip it and the next request sees it, no restart.
  app.get('/checkout', { config: { vane: { flags: 'new-checkout' } } }, async () => ({ checkout: 'new' }));
  // A live config read: request.vane on every request, synchronous.
  app.get('/greeting', async (request) => ({ greeting: request.vane.config('greeting.text', 'Hello') }));
  // A secret: use it, never send it back (a missing one is a clean JSON 500).
  app.get('/payments', async (request) => ({
    stripeConfigured: request.vane.requireSecret('stripe.api_key').length > 0,
  }));
  return app;
}

// `node server.mjs` starts the app; a test that imports this file gets `buildApp` alone.
if (realpathSync(process.argv[1]) === import.meta.filename) {
  const app = await buildApp({ baseUrl: process.env.VANE_BASE_URL, apiKey: process.env.VANE_API_KEY });
  // Every change as it arrives from the service's stream.
  app.vane.client.onChange((e) => console.log(`vane: ${e.kind} ${e.key} changed (revision ${e.revision})`));
  await app.listen({ port: Number(process.env.PORT ?? 3000) });
  console.log(`listening on http://localhost:${app.server.address().port}`);
  // SIGTERM: stop accepting connections, finish requests in flight, then close Vane (stream, timers, files).
  process.once('SIGTERM', () => void app.close());
}
// #endregion fastify5-esm
