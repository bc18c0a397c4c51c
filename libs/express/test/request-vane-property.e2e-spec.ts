import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Request, RequestHandler, Response } from 'express';
import request from 'supertest';
import { EXPRESS_VERSIONS } from './support/express-versions.js';
import { startFixture, type VaneFixture } from './support/vane-fixture.js';

// `req.vane` is read through a getter on the framework's request prototype, with the accessor
// kept in `res.locals` under a symbol: nothing is added to Express's requests (see
// request-accessors.ts for why). These tests pin what a user can observe of that.
describe.each(EXPRESS_VERSIONS)('req.vane on %s', (_name, makeApp) => {
  let fx: VaneFixture;

  beforeEach(async () => {
    fx = await startFixture();
  });
  afterEach(() => fx.close());

  it('reads like a property but adds nothing to the request: no key, no symbol', async () => {
    const app = makeApp();
    app.use(fx.vane.middleware());
    app.get('/shape', (req, res) => {
      res.json({
        inRequest: 'vane' in req,
        own: Object.prototype.hasOwnProperty.call(req, 'vane'),
        inKeys: Object.keys(req).includes('vane'),
        symbols: Object.getOwnPropertySymbols(req)
          .map(String)
          .filter((name) => name.includes('vane')),
        reads: req.vane.config('db.pool.max'),
      });
    });
    const res = await request(app).get('/shape').expect(200);
    expect(res.body).toEqual({
      inRequest: true,
      own: false,
      inKeys: false,
      symbols: [],
      reads: 10,
    });
  });

  it('keeps its state in res.locals under a symbol: no key a template sees, and a spread copy carries it', async () => {
    const app = makeApp();
    app.use(fx.vane.middleware());
    app.get('/locals', (req, res) => {
      const keys = Object.keys(res.locals);
      const symbols = Object.getOwnPropertySymbols(res.locals).map(String);
      const before = req.vane;
      // Replacing res.locals by a copy of it (a spread, Object.assign) keeps Vane's entry.
      res.locals = { ...res.locals, user: 'u-1' };
      res.json({ keys, symbols, same: req.vane === before, reads: req.vane.config('db.pool.max') });
    });
    const res = await request(app).get('/locals').expect(200);
    expect(res.body).toEqual({ keys: [], symbols: ['Symbol(vane.accessors)'], same: true, reads: 10 });
  });

  it('an app that replaces res.locals loses req.vane until a guard starts over; it comes back when the response is done, with one warning', async () => {
    await fx.close();
    const warnings: string[] = [];
    fx = await startFixture({ logger: { warn: (m) => warnings.push(m), error: () => undefined } });
    const app = makeApp();
    app.use(fx.vane.middleware());
    let after: Promise<unknown> | undefined;
    app.get(
      '/replace',
      (req, res, next) => {
        const first = req.vane;
        res.locals = { user: 'u-1' };
        res.locals.lost = req.vane === undefined;
        res.locals.first = first;
        next();
      },
      fx.vane.requireFlag('new-checkout'),
      (req, res) => {
        const again = req.vane;
        after = new Promise((resolve) => res.once('finish', resolve)).then(() => ({
          back: req.vane === again,
          reads: req.vane.config('db.pool.max'),
        }));
        res.json({ lost: res.locals.lost, guardStartedOver: again !== undefined && again !== res.locals.first });
      },
    );
    await request(app).get('/replace').expect(200, { lost: true, guardStartedOver: true });
    expect(await after).toEqual({ back: true, reads: 10 });
    await request(app).get('/replace').expect(200);
    // Once per logger, naming what to do and no value.
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/res\.locals was replaced.*Add to res\.locals/);
  });

  it('still answers code running for a request after its response is done, A/B included', async () => {
    await fx.close();
    let contexts = 0;
    fx = await startFixture({
      abContext: (req) => {
        contexts += 1;
        return { userId: req.get('x-user-id') ?? 'nobody', attributes: { country: 'DE' } };
      },
    });
    const app = makeApp();
    let after: Promise<unknown> | undefined;
    app.get('/late', fx.vane.requireFlag('new-pricing', { ab: true }), (req, res) => {
      // The accessor lets go of its request once the response is done (request-accessors.ts);
      // reading req.vane afterwards hands it back: same reader, same user, same answers.
      const before = req.vane;
      after = new Promise((resolve) => res.once('finish', resolve)).then(async () => ({
        same: req.vane === before,
        reads: req.vane.config('db.pool.max'),
        ab: await req.vane.ab(['new-pricing', 'big-banner']),
      }));
      res.json({ ok: true });
    });
    await request(app).get('/late').set('x-user-id', 'u-late').expect(200, { ok: true });
    expect(await after).toEqual({
      same: true,
      reads: 10,
      ab: expect.objectContaining({ 'new-pricing': true }) as unknown,
    });
    // One user asked once for the request, before and after its response.
    expect(contexts).toBe(1);
  });

  it('an A/B guard reached after the response was done still knows its user', async () => {
    await fx.close();
    fx = await startFixture({
      abContext: (req) => ({ userId: req.get('x-user-id') ?? 'nobody', attributes: { country: 'DE' } }),
    });
    const app = makeApp();
    app.use(fx.vane.middleware());
    let reached: (value: boolean) => void = () => undefined;
    const outcome = new Promise<boolean>((resolve) => (reached = resolve));
    app.get(
      '/sent-first',
      // Answers at once, and goes on once the response is done (when the accessor let go of its request).
      (_req, res, next) => {
        res.once('finish', () => next());
        res.json({ ok: true });
      },
      fx.vane.requireFlag('new-pricing', { ab: true }),
      () => reached(true),
    );
    app.use(() => reached(false));
    app.use((_err: unknown, _req: Request, _res: Response, _next: unknown) => reached(false));
    await request(app).get('/sent-first').set('x-user-id', 'u-late').expect(200, { ok: true });
    expect(await outcome).toBe(true);
  });

  it('is undefined on a request no Vane middleware or guard has seen', async () => {
    const app = makeApp();
    app.use('/with', fx.vane.middleware());
    app.get('/with', (req, res) => res.json({ has: req.vane !== undefined }));
    app.get('/without', (req, res) => res.json({ has: req.vane !== undefined }));
    await request(app).get('/with').expect(200, { has: true });
    await request(app).get('/without').expect(200, { has: false });
  });

  it("an app that assigns req.vane gets an own property; Vane's guards keep their own accessor", async () => {
    const app = makeApp();
    app.use(fx.vane.middleware());
    const replace: RequestHandler = (req, _res, next) => {
      (req as unknown as { vane: unknown }).vane = 'replaced by the app';
      next();
    };
    app.get('/after', replace, fx.vane.requireFlag('new-checkout'), (req, res) =>
      res.json({ vane: req.vane, own: Object.prototype.hasOwnProperty.call(req, 'vane') }),
    );
    await request(app).get('/after').expect(200, { vane: 'replaced by the app', own: true });
    // The next request is not affected by the last one's assignment.
    app.get('/next', (req, res) => res.json({ reads: req.vane.config('db.pool.max') }));
    await request(app).get('/next').expect(200, { reads: 10 });
  });

  it('reaches a mounted sub-app, whose requests inherit the parent app’s request prototype', async () => {
    const app = makeApp();
    const sub = makeApp();
    app.use(fx.vane.middleware());
    sub.get('/reads', (req, res) => res.json({ reads: req.vane.config('db.pool.max') }));
    app.use('/sub', sub);
    await request(app).get('/sub/reads').expect(200, { reads: 10 });
  });
});

describe('req.vane on a bare Node server (no framework prototype)', () => {
  let fx: VaneFixture;

  beforeEach(async () => {
    fx = await startFixture();
  });
  afterEach(() => fx.close());

  it("is an own property of the request, and Node's IncomingMessage prototype is left alone", async () => {
    const middleware = fx.vane.middleware();
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      middleware(req as Request, res as Response, () => {
        const vane = (req as Request).vane;
        res.end(
          JSON.stringify({ own: Object.prototype.hasOwnProperty.call(req, 'vane'), reads: vane.config('db.pool.max') }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/`);
      expect(await res.json()).toEqual({ own: true, reads: 10 });
      const { IncomingMessage: Message } = await import('node:http');
      expect(Object.getOwnPropertyDescriptor(Message.prototype, 'vane')).toBeUndefined();
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
