/**
 * The Express sample app: every feature of `@vane/express` on one page of
 * routes. `createApp(vane)` builds it, so tests can mount it as it is.
 */
import { statSync } from 'node:fs';
import type { VaneExpress } from '@vane/express';
import express, { type Express } from 'express';

/** Builds the sample app on a ready `VaneExpress` (from `createVane()`). */
// #region app
export function createApp(vane: VaneExpress): Express {
  const app = express();
  app.use(vane.middleware());

  // A live config read: change `greeting.text` through the admin API and the next request shows it.
  app.get('/greeting', (req, res) => {
    res.json({ greeting: req.vane.config('greeting.text', 'Hello'), poolMax: req.vane.config('db.pool.max', 10) });
  });

  // A route behind a flag: while `new-checkout` is off, it is as absent as any unknown path (the app's 404 below).
  app.get('/checkout', vane.requireFlag('new-checkout'), (_req, res) => {
    res.json({ checkout: 'new' });
  });

  // An A/B route: `new-pricing` is evaluated for the user (x-user-id, x-country); 404 when it is off for them.
  app.get('/pricing', vane.requireFlag('new-pricing', { ab: true }), (req, res) => {
    res.json({ pricing: 'new', discount: req.vane.config('pricing.discount', 0) });
  });

  // A text secret: use it, never send it. The answer shows only that it is there and its version.
  app.get('/payments', (req, res) => {
    const stripeKey = req.vane.requireSecret('stripe.api_key');
    res.json({ stripeConfigured: stripeKey.length > 0, version: req.vane.secretInfo('stripe.api_key')?.version });
  });

  // A file secret: a private 0600 file, rewritten when the secret changes (e.g. a TLS certificate for a client).
  app.get('/tls', (req, res) => {
    const path = req.vane.requireSecretFile('tls.client_pem');
    res.json({ bytes: statSync(path).size, version: req.vane.secretInfo('tls.client_pem')?.version });
  });

  // The app's own 404, for a path no route has and for a route whose flag is off alike.
  app.use((_req, res) => {
    res.status(404).json({ statusCode: 404, message: 'Not Found' });
  });

  // Vane errors (a missing secret, the service unreachable for an A/B call…) as clean JSON.
  app.use(vane.errorHandler());
  return app;
}
// #endregion app
