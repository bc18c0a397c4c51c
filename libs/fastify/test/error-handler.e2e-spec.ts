import {
  AddonNotAvailableError,
  BillingOverdueError,
  ClientClosedError,
  FrontendSecretReadError,
  InvalidArgumentError,
  LiveResourceBuildError,
  LiveResourceClosedError,
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
import vane from '@vane/fastify';
import type { FastifyError, FastifyInstance } from 'fastify';
import { FASTIFY_VERSIONS, type AppFactory } from './support/fastify-versions.js';
import { keptLogger, logStream, startServer, type ServerFixture } from './support/vane-fixture.js';
import { ADAPTER_KEYS, ADAPTER_SECRET_VALUES } from '@vane/test-harness';

// Every message below carries an API key and a secret value, as a careless message could: none may reach a body.
const LEAK = `key ${ADAPTER_KEYS.secret} value ${ADAPTER_SECRET_VALUES.stripe} secret "stripe.api_key"`;

// The same statuses as @vane/express (one table, in @vane/client).
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
];

function expectNoLeak(text: string): void {
  expect(text).not.toContain(ADAPTER_KEYS.secret);
  expect(text).not.toContain(ADAPTER_SECRET_VALUES.stripe);
  expect(text).not.toContain('stripe.api_key');
  expect(text).not.toMatch(/svs_|svp_/);
}

describe.each(FASTIFY_VERSIONS)('the error handler on %s', (_name, makeApp: AppFactory) => {
  let fx: ServerFixture;
  let app: FastifyInstance;

  beforeEach(async () => {
    fx = await startServer();
    app = makeApp();
  });
  afterEach(async () => {
    await app.close();
    await fx.close();
  });

  it.each(KINDS)(
    'answers %s with %d and a fixed message, through Fastify error handling',
    async (code, error, status, retryAfter) => {
      const logger = keptLogger();
      await app.register(vane, fx.options({ logger }));
      app.get('/fail', async () => {
        throw error;
      });
      const res = await app.inject('/fail?token=abc');
      expect(res.statusCode).toBe(status);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.json()).toEqual({ statusCode: status, code, message: expect.any(String) });
      expect(res.headers['retry-after']).toBe(retryAfter);
      expectNoLeak(res.body);
      expect(logger.lines).toEqual([expect.stringMatching(new RegExp(`^error GET /fail: ${status} ${code}: `))]);
    },
  );

  it('answers the errors a route meets through request.vane: a missing secret names no key', async () => {
    await app.register(vane, fx.options({ logger: keptLogger() }));
    app.get('/payments', async (request) => ({ ok: request.vane.requireSecret('no.such.secret').length > 0 }));
    const res = await app.inject('/payments');
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({
      statusCode: 500,
      code: 'VANE_SECRET_NOT_FOUND',
      message: 'A secret this route needs is not available.',
    });
    expect(res.body).not.toContain('no.such.secret');
  });

  it('logs to request.log (pino, with the request id) by default', async () => {
    await app.close();
    const log = logStream();
    app = makeApp({ logger: { level: 'warn', stream: log.stream } });
    await app.register(vane, fx.options());
    app.get('/fail', async () => {
      throw new SecretNotFoundError('stripe.api_key');
    });
    expect((await app.inject('/fail')).statusCode).toBe(500);
    expect(log.entries()).toEqual([
      expect.objectContaining({
        level: 50,
        reqId: expect.anything(),
        msg: expect.stringMatching(/^GET \/fail: 500 VANE_SECRET_NOT_FOUND: /),
      }),
    ]);
  });

  it('hands every other error on to the handler in place before (Fastify’s), unchanged', async () => {
    await app.register(vane, fx.options({ logger: keptLogger() }));
    app.get('/teapot', async () => {
      throw Object.assign(new Error('short and stout'), { statusCode: 418 });
    });
    const res = await app.inject('/teapot');
    expect(res.statusCode).toBe(418);
    expect(res.json()).toMatchObject({ statusCode: 418, message: 'short and stout' });
  });

  it('takes statuses by code; errorHandler: false sets none, and app.vane.errorHandler() goes where you want', async () => {
    await app.register(
      vane,
      fx.options({ logger: keptLogger(), errorHandler: { statuses: { VANE_SECRET_NOT_FOUND: 404 } } }),
    );
    app.get('/secret', async () => {
      throw new SecretNotFoundError('x');
    });
    expect((await app.inject('/secret')).statusCode).toBe(404);

    const own = makeApp();
    try {
      await own.register(vane, fx.options({ logger: keptLogger(), errorHandler: false }));
      own.get('/plain', async () => {
        throw new UnauthorizedError('the key was refused');
      });
      await own.register(async (scope) => {
        scope.setErrorHandler(scope.vane.errorHandler());
        scope.get('/scoped', async () => {
          throw new UnauthorizedError('the key was refused');
        });
      });
      // Without it, Fastify answers with the error's own status: the 401 Vane gave the app.
      expect((await own.inject('/plain')).statusCode).toBe(401);
      expect((await own.inject('/scoped')).json()).toMatchObject({ statusCode: 503, code: 'VANE_UNAUTHORIZED' });
    } finally {
      await own.close();
    }
  });

  it('is called from an app error handler of its own for the Vane errors (the README way)', async () => {
    await app.register(vane, fx.options({ logger: keptLogger(), errorHandler: false }));
    const vaneErrors = app.vane.errorHandler();
    app.setErrorHandler((error: FastifyError, request, reply) => {
      if (error.code?.startsWith('VANE_')) return vaneErrors(error, request, reply);
      void reply.code(error.statusCode ?? 500).send({ oops: true });
    });
    app.get('/vane', async () => {
      throw new ClientClosedError('closed');
    });
    app.get('/other', async () => {
      throw new TypeError('boom');
    });
    expect((await app.inject('/vane')).json()).toMatchObject({ statusCode: 503, code: 'VANE_CLIENT_CLOSED' });
    expect((await app.inject('/other')).json()).toEqual({ oops: true });
  });
});
