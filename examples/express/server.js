// The README's Express quick start for Express 4 in CommonJS, whole (the region is the file a reader
// pastes). `npm run test:newcomer` runs it in a fresh Express 4 app made from the README, and its test,
// server.test.js, beside it.
// #region express4-cjs
const express = require('express');
const { createVane } = require('@vane/express');

/** The app on a Vane of your choice: `main` below gives it the service's, a test the local server's. */
function createApp(vane) {
  const app = express();
  app.use(vane.middleware()); // req.vane on every request: synchronous, live reads

  // Behind a flag: 404 while `new-checkout` is off. Flip it and the next request sees it, no restart.
  app.get('/checkout', vane.requireFlag('new-checkout'), (req, res) => {
    res.json({ checkout: 'new' });
  });
  // A live config read.
  app.get('/greeting', (req, res) => {
    res.json({ greeting: req.vane.config('greeting.text', 'Hello') });
  });
  // A secret: use it, never send it back.
  app.get('/payments', (req, res) => {
    res.json({ stripeConfigured: req.vane.requireSecret('stripe.api_key').length > 0 });
  });
  app.use(vane.errorHandler()); // Vane errors (a missing secret…) as clean JSON
  return app;
}

async function main() {
  // The blocking initial sync: every value in memory before the first request, or an error that says why.
  const vane = await createVane({ baseUrl: process.env.VANE_BASE_URL, apiKey: process.env.VANE_API_KEY });
  // Every change as it arrives from the service's stream.
  vane.client.onChange((e) => console.log(`vane: ${e.kind} ${e.key} changed (revision ${e.revision})`));

  const server = createApp(vane).listen(Number(process.env.PORT ?? 3000), () => {
    console.log(`listening on http://localhost:${server.address().port}`);
  });
  // SIGTERM: stop accepting connections, finish requests in flight, then close Vane (stream, timers, files).
  process.once('SIGTERM', () => server.close(() => void vane.close()));
}

module.exports = { createApp };

// `node server.js` starts the app; a test that requires this file gets `createApp` alone.
if (require.main === module) {
  main().catch((err) => {
    console.error(err.message); // e.g. VANE_UNAUTHORIZED: the key is not valid for this service
    process.exitCode = 1;
  });
}
// #endregion express4-cjs
