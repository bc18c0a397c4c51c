// An A/B route in Express 5, the whole file (the region is what a reader pastes): the user comes from
// the request's headers, the service decides per user. `npm run test:newcomer` runs it in a fresh
// Express 5 app made from libs/express/README.md; test/readme.slow-spec.ts runs it here.
// #region express-ab-route
import express from 'express';
import { createVane } from '@vane/express';

const vane = await createVane({
  baseUrl: process.env.VANE_BASE_URL,
  apiKey: process.env.VANE_API_KEY,
  // Who the user is, for A/B flags: from headers so curl can try it; a real app reads its session.
  // No user id: anonymous, its A/B flags are off and nothing is sent.
  abContext: (req) => {
    const userId = req.get('x-user-id');
    const country = req.get('x-country');
    return userId ? { userId, attributes: country ? { country } : {} } : null;
  },
});

const app = express();
app.use(vane.middleware());
// Behind an A/B flag, decided per user by the service's rule: 404 for users outside it, and for anonymous ones.
app.get('/pricing', vane.requireFlag('new-pricing', { ab: true }), (req, res) => {
  res.json({ pricing: 'new', discount: req.vane.config('pricing.discount', 0) });
});
app.use(vane.errorHandler());

const server = app.listen(Number(process.env.PORT ?? 3000), () => {
  console.log(`listening on http://localhost:${server.address().port}`);
});
process.once('SIGTERM', () => server.close(() => void vane.close()));
// #endregion express-ab-route
