import {
  AddonNotAvailableError,
  BillingOverdueError,
  ClientClosedError,
  FrontendSecretReadError,
  InvalidArgumentError,
  LiveResourceBuildError,
  LiveResourceClosedError,
  NotAVaneServiceError,
  VaneNotFoundError,
  PublicKeySecretAccessError,
  QuarantinedError,
  CommitOutcomeUnknownError,
  RateLimitedError,
  SecretFileWriteError,
  SecretsNotAvailableError,
  SecretNotFoundError,
  SessionExpiredError,
  TokenExchangeFailedError,
  TransportError,
  UnauthorizedError,
  UnexpectedResponseError,
  WorkloadIdentityNotConfiguredError,
} from '@vane/client/errors';
import { AbContextError, createVane } from '@vane/express';
import type { NextFunction, Request, Response } from 'express';
import request from 'supertest';
import { EXPRESS_VERSIONS, type AppFactory } from './support/express-versions.js';
import { startFixture, type VaneFixture } from './support/vane-fixture.js';
import { ADAPTER_KEYS, ADAPTER_SECRET_VALUES } from '@vane/test-harness';

// Every message below carries an API key and a secret value, as a careless message could: none may reach a body.
const LEAK = `key ${ADAPTER_KEYS.secret} value ${ADAPTER_SECRET_VALUES.stripe} secret "stripe.api_key"`;

const KINDS: ReadonlyArray<readonly [string, Error, number, string | undefined]> = [
  ['VANE_UNAUTHORIZED', new UnauthorizedError(LEAK), 503, undefined],
  ['VANE_BILLING_OVERDUE', new BillingOverdueError(LEAK), 503, undefined],
  ['VANE_NOT_FOUND', new VaneNotFoundError(LEAK), 503, undefined],
  ['VANE_RATE_LIMITED', new RateLimitedError(LEAK, { retryAfterMs: 2_500 }), 503, '3'],
  [
    'VANE_QUARANTINED',
    new QuarantinedError(LEAK, { retryAfterMs: 60_000, until: new Date('2026-11-22T10:00:00Z') }),
    503,
    '60',
  ],
  ['VANE_ADDON_NOT_AVAILABLE', new AddonNotAvailableError(LEAK), 503, undefined],
  ['VANE_COMMIT_OUTCOME_UNKNOWN', new CommitOutcomeUnknownError(LEAK), 504, undefined],
  ['VANE_UNEXPECTED_RESPONSE', new UnexpectedResponseError(LEAK, 500), 502, undefined],
  ['VANE_TRANSPORT', new TransportError(LEAK), 502, undefined],
  ['VANE_NOT_A_VANE_SERVICE', new NotAVaneServiceError(LEAK, 404), 502, undefined],
  ['VANE_TRANSPORT', new TransportError(LEAK, { timedOut: true }), 504, undefined],
  ['VANE_TOKEN_EXCHANGE_FAILED', new TokenExchangeFailedError(LEAK, 403), 503, undefined],
  ['VANE_SESSION_EXPIRED', new SessionExpiredError(LEAK), 503, undefined],
  ['VANE_WORKLOAD_IDENTITY_NOT_CONFIGURED', new WorkloadIdentityNotConfiguredError(LEAK), 500, undefined],
  ['VANE_PUBLIC_KEY_SECRET_ACCESS', new PublicKeySecretAccessError(LEAK), 500, undefined],
  ['VANE_FRONTEND_SECRET_READ', new FrontendSecretReadError(LEAK), 500, undefined],
  ['VANE_SECRET_NOT_FOUND', new SecretNotFoundError('stripe.api_key', LEAK), 500, undefined],
  ['VANE_SECRET_FILE_WRITE', new SecretFileWriteError(LEAK), 500, undefined],
  ['VANE_SECRETS_NOT_AVAILABLE', new SecretsNotAvailableError(LEAK), 503, undefined],
  ['VANE_INVALID_ARGUMENT', new InvalidArgumentError(LEAK), 500, undefined],
  ['VANE_CLIENT_CLOSED', new ClientClosedError(LEAK), 503, undefined],
  [
    'VANE_LIVE_RESOURCE_BUILD_FAILED',
    new LiveResourceBuildError(LEAK, { resource: 'pg', stage: 'create', revision: 1 }),
    503,
    undefined,
  ],
  ['VANE_LIVE_RESOURCE_CLOSED', new LiveResourceClosedError('pg', LEAK), 503, undefined],
  ['VANE_AB_CONTEXT_INVALID', new AbContextError(LEAK), 400, undefined],
];

function expectNoLeak(text: string): void {
  expect(text).not.toContain(ADAPTER_KEYS.secret);
  expect(text).not.toContain(ADAPTER_SECRET_VALUES.stripe);
  expect(text).not.toContain('stripe.api_key');
  expect(text).not.toMatch(/svs_|svp_/);
}

function appError(err: Error, _req: Request, res: Response, _next: NextFunction): void {
  res.status(599).json({ reached: 'app error handler', message: err.message });
}

describe.each(EXPRESS_VERSIONS)('vane.errorHandler on %s', (_name, makeApp: AppFactory) => {
  let fx: VaneFixture;
  let logged: string[];

  beforeEach(async () => {
    logged = [];
    fx = await startFixture({
      logger: { warn: (m) => logged.push(`warn ${m}`), error: (m) => logged.push(`error ${m}`) },
    });
  });
  afterEach(() => fx.close());

  function appThrowing(err: unknown) {
    const app = makeApp();
    app.use(fx.vane.middleware());
    app.get('/boom', () => {
      throw err;
    });
    app.use(fx.vane.errorHandler());
    app.use(appError);
    return app;
  }

  it.each(KINDS)(
    'answers %s with its status, its code, a fixed message, and no key or value',
    async (code, error, status, retryAfter) => {
      const res = await request(appThrowing(error)).get('/boom').expect(status);
      expect(res.body).toEqual({ statusCode: status, code, message: expect.any(String) });
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['retry-after']).toBe(retryAfter);
      expectNoLeak(res.text);
      // The full message goes to the logger given to createVane (the client's own messages are already redacted).
      expect(logged).toEqual([`${status >= 500 ? 'error' : 'warn'} GET /boom: ${status} ${code}: ${LEAK}`]);
    },
  );

  it('covers every code of the client and of @vane/express', () => {
    const codes = new Set(KINDS.map(([code]) => code));
    expect(codes.size).toBe(23);
  });

  it('passes other errors, and errors after headers were sent, to next()', async () => {
    const coded = Object.assign(new Error('ECONNRESET somewhere else'), { code: 'ECONNRESET' });
    expect((await request(appThrowing(coded)).get('/boom').expect(599)).body).toEqual({
      reached: 'app error handler',
      message: 'ECONNRESET somewhere else',
    });
    expect((await request(appThrowing('a string')).get('/boom').expect(599)).body).toEqual({
      reached: 'app error handler',
    });

    const app = makeApp();
    app.get('/late', (_req, res, next) => {
      res.status(200).write('partial');
      next(new RateLimitedError('late'));
    });
    app.use(fx.vane.errorHandler({ logger: false }));
    app.use((err: Error, _req: Request, res: Response, _next: NextFunction) => res.end(` then ${err.name}`));
    expect((await request(app).get('/late').expect(200)).text).toBe('partial then RateLimitedError');
  });

  it('takes statuses by code and a logger of its own; logger: false logs nothing', async () => {
    const mine: string[] = [];
    const app = makeApp();
    app.get('/ab', () => {
      throw new AbContextError('attribute "age" must be a string, got number');
    });
    app.get('/secret', () => {
      throw new SecretNotFoundError('x');
    });
    app.use('/quiet', () => {
      throw new SecretNotFoundError('x');
    });
    app.use('/quiet', fx.vane.errorHandler({ logger: false }));
    app.use(
      fx.vane.errorHandler({
        statuses: { VANE_AB_CONTEXT_INVALID: 422 },
        logger: { warn: (m) => mine.push(m), error: (m) => mine.push(m) },
      }),
    );
    expect((await request(app).get('/ab').expect(422)).body).toMatchObject({
      statusCode: 422,
      code: 'VANE_AB_CONTEXT_INVALID',
    });
    await request(app).get('/secret').expect(500);
    await request(app).get('/quiet').expect(500);
    expect(mine).toEqual([
      expect.stringContaining('VANE_AB_CONTEXT_INVALID'),
      expect.stringContaining('VANE_SECRET_NOT_FOUND'),
    ]);
    expect(logged).toEqual([]);
  });

  describe('errors raised by the live service', () => {
    function abApp(vane = fx.vane) {
      const app = makeApp();
      app.use(vane.middleware());
      app.get('/ab', (req, res, next) => void req.vane.ab('new-pricing').then((on) => res.json({ on }), next));
      app.get('/secret', (req, res) => res.json({ length: req.vane.requireSecret('no.such.secret').length }));
      app.get('/stripe', (req, res) => res.json({ length: req.vane.requireSecret('stripe.api_key').length }));
      app.use(vane.errorHandler({ logger: false }));
      return app;
    }

    it.each([
      ['402 billing overdue', () => fx.server.admin.setTenant({ overdue_days: 30 }), 'VANE_BILLING_OVERDUE'],
      ['403 add-on off', () => fx.server.admin.setTenant({ ab_addon: false }), 'VANE_ADDON_NOT_AVAILABLE'],
      [
        '429 quarantine',
        () => fx.server.admin.setTenant({ quarantined_until: new Date(Date.now() + 3_600_000).toISOString() }),
        'VANE_QUARANTINED',
      ],
      ['401 revoked key', () => fx.server.admin.revokeKey('shop', ADAPTER_KEYS.secret), 'VANE_UNAUTHORIZED'],
    ])(
      'an A/B evaluation that meets %s fails closed (off), with one warning and no leak',
      async (_case, breakIt, code) => {
        const logged: string[] = [];
        await fx.close();
        fx = await startFixture({
          abContext: (req) => ({ userId: req.get('x-user-id') ?? 'u-1', attributes: { country: 'DE' } }),
          logger: { warn: (m) => logged.push(m), error: () => undefined },
        });
        const app = abApp();
        expect((await request(app).get('/ab').expect(200)).body).toEqual({ on: true });
        breakIt();
        // Another user: u-1's answer is cached, and would be served without meeting the service.
        const res = await request(app).get('/ab').set('x-user-id', 'u-2').expect(200);
        expect(res.body).toEqual({ on: false });
        expect(logged.filter((m) => m.startsWith('A/B evaluation'))).toEqual([
          expect.stringContaining(`failed (${code}), treating them as off`),
        ]);
        expectNoLeak(res.text);
        // Logs may name a key only redacted (svs_…abcd), never in full, and never a secret value.
        expect(logged.join('\n')).not.toContain(ADAPTER_KEYS.secret);
        expect(logged.join('\n')).not.toContain(ADAPTER_SECRET_VALUES.stripe);
      },
    );

    it('answers a missing required secret with 500 VANE_SECRET_NOT_FOUND, naming no secret', async () => {
      const res = await request(abApp()).get('/secret').expect(500);
      expect(res.body).toEqual({
        statusCode: 500,
        code: 'VANE_SECRET_NOT_FOUND',
        message: 'A secret this route needs is not available.',
      });
      expect(res.text).not.toContain('no.such.secret');
    });

    it('answers a secret read with a public key with 500 VANE_PUBLIC_KEY_SECRET_ACCESS', async () => {
      const vane = await createVane({ baseUrl: fx.server.baseUrl('shop'), apiKey: ADAPTER_KEYS.public, stream: false });
      try {
        const res = await request(abApp(vane)).get('/stripe').expect(500);
        expect(res.body).toMatchObject({ code: 'VANE_PUBLIC_KEY_SECRET_ACCESS' });
        expectNoLeak(res.text);
      } finally {
        await vane.close();
      }
    });

    it('answers a secret read on a frontend service with 500 VANE_FRONTEND_SECRET_READ', async () => {
      const vane = await createVane({
        baseUrl: fx.server.baseUrl('web'),
        apiKey: ADAPTER_KEYS.webSecret,
        stream: false,
      });
      try {
        const res = await request(abApp(vane)).get('/stripe').expect(500);
        expect(res.body).toMatchObject({ code: 'VANE_FRONTEND_SECRET_READ' });
        expect(res.text).not.toContain(ADAPTER_KEYS.webSecret);
      } finally {
        await vane.close();
      }
    });
  });
});
