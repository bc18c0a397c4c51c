// The benchmarked app, in its own process (started with --expose-gc): an
// Express 5 app on the built @vane/express, connected to the local server
// named by BENCH_VANE_URL / BENCH_VANE_KEY, with four Vanes on the same
// service: one with the default cache of A/B answers, one whose answers
// live 10 minutes (`maxAgeMs`: within the benchmark, only a new revision
// would make it ask again), one with `abCache: false` (every evaluation
// one call, as before the cache), and one whose answers live 10 minutes
// with `consistentReads: false`. Routes, identical but for their guard:
//   GET /open          no guard
//   GET /noop          a middleware that only calls next(): what any guard costs in Express
//   GET /floor         the least an A/B guard with its answers in memory can do, written by hand
//                      with no library: the app's abContext, one Map lookup by user id, the
//                      attributes compared, next() (the floor under /ab-long)
//   GET /flag          requireFlag('new-checkout') (a plain flag, on)
//   GET /ab            requireFlag('new-pricing', { ab: true }), cache on (defaults)
//   GET /ab-long       the same, answers kept 10 minutes
//   GET /ab-client     no guard: the handler awaits client.evaluateAb() itself
//                      (answers kept 10 minutes), to tell the client's cost from the adapter's
//   GET /ab-uncached   the same, abCache: false
//   GET /flag-live     requireFlag('new-checkout') on a Vane with consistentReads: false (no revision
//                      pinned per request)
//   GET /ab-live       requireFlag('new-pricing', { ab: true }) on that Vane, answers kept 10 minutes
// The A/B user is the `x-user-id` header, with two attributes. GET /stats
// and GET /heap (after a full GC) report the cache, GET /cpu the process's
// CPU time so far. Prints {"port": n} when ready.
import express from 'express';
import { createVane } from '@vane/express';

const baseUrl = process.env.BENCH_VANE_URL;
const apiKey = process.env.BENCH_VANE_KEY;
const logger = { warn: (m) => console.error(`[app] ${m}`), error: (m) => console.error(`[app] ${m}`) };
const abContext = (req) => ({
  userId: req.get('x-user-id') ?? 'anonymous',
  attributes: { country: 'DE', plan: 'pro' },
});

const cached = await createVane({ baseUrl, apiKey, abContext, logger });
const long = await createVane({ baseUrl, apiKey, abContext, logger, abCache: { maxAgeMs: 600_000 } });
const uncached = await createVane({ baseUrl, apiKey, abContext, logger, abCache: false });
// Reads live (no revision pinned per request): what the A/B route costs without consistentReads.
const live = await createVane({
  baseUrl,
  apiKey,
  abContext,
  logger,
  abCache: { maxAgeMs: 600_000 },
  consistentReads: false,
});

const ok = (_req, res) => res.send('ok');
const app = express();
// Each measured route is the only route of a router of its own, which one lookup by path picks:
// Express tries an app's routes in order, so a route registered ninth paid eight failed path
// matches the first did not (about 1 µs per request on Node 24, profiled with perf).
const routers = new Map();
const route = (path, ...handlers) => routers.set(path, express.Router().get(path, ...handlers));
app.use((req, res, next) => {
  const router = routers.get(req.path);
  if (router === undefined) return next();
  router(req, res, next);
});
route('/open', ok);
route('/noop', (_req, _res, next) => next(), ok);
// The answers are kept on a user's first request (the bench's rule lets every user in): from then
// on, every request is a hit, as on /ab-long.
const floorAnswers = new Map();
route(
  '/floor',
  (req, res, next) => {
    const { userId, attributes } = abContext(req);
    let kept = floorAnswers.get(userId);
    if (kept === undefined) floorAnswers.set(userId, (kept = { ...attributes, answer: true }));
    if (kept.country === attributes.country && kept.plan === attributes.plan && kept.answer) return next();
    res.status(404).end();
  },
  ok,
);
route('/flag', cached.requireFlag('new-checkout'), ok);
route('/ab', cached.requireFlag('new-pricing', { ab: true }), ok);
route('/ab-long', long.requireFlag('new-pricing', { ab: true }), ok);
route('/ab-client', (req, res, next) => {
  long.client
    .evaluateAb(['new-pricing'], abContext(req))
    .then((results) => (results['new-pricing'] ? ok(req, res) : next()), next);
});
route('/ab-uncached', uncached.requireFlag('new-pricing', { ab: true }), ok);
route('/flag-live', live.requireFlag('new-checkout'), ok);
route('/ab-live', live.requireFlag('new-pricing', { ab: true }), ok);
const stats = () => ({
  revision: cached.client.revision,
  cache: cached.client.abCacheStats,
  long: long.client.abCacheStats,
  live: live.client.abCacheStats,
});
app.get('/stats', (_req, res) => res.json(stats()));
app.get('/cpu', (_req, res) => {
  const { user, system } = process.cpuUsage();
  res.json({ micros: user + system });
});
app.get('/heap', (_req, res) => {
  globalThis.gc();
  globalThis.gc();
  res.json({ heapUsed: process.memoryUsage().heapUsed, ...stats() });
});

const server = app.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void Promise.all([cached.close(), long.close(), uncached.close(), live.close()]).then(() => process.exit(0));
});
