/**
 * One behaviour in every adapter: the same rows run over a real app of each
 * adapter, against the real local server. The next adapter is added by adding
 * a row to DRIVERS.
 */
import 'reflect-metadata';
import type { Server } from 'node:http';
import { Controller, Get, HttpException, Param, type ExecutionContext, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { AbContext, VaneLogger } from '@vane/client';
import { VANE_ERROR_ANSWERS, type FlagDenial } from '@vane/client/adapter';
import { RateLimitedError, TransportError } from '@vane/client/errors';
import { createVane, type RequestVane } from '@vane/express';
import vanePlugin from '@vane/fastify';
import { startVaneServer, type VaneServer } from '@vane/server';
import { FeatureFlag, Secret, VaneModule } from '@vane/nestjs';
import express from 'express';
import Fastify from 'fastify';
import request from 'supertest';
import { CountingDispatcher } from '../libs/express/test/support/counting-dispatcher.js';
import { adminRequest, until } from '@vane/server/testing';
import { adapterSeed } from '@vane/test-harness';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const EVALUATE_AB = '/v1/flags/evaluate-ab';
const TYPO = 'new-chekout';
const MISSING_SECRET = 'no.such.secret';
/** The message of the errors `/vane-error/:kind` throws: an answer must never carry it. */
const ERROR_OWN_MESSAGE = 'own message of the error (svs_never_in_an_answer)';

/** The client's typed error a handler lets escape, by kind: rate limited (with a delay), timed out, unreachable. */
function vaneErrorOf(kind: string): Error {
  if (kind === 'rate-limited') return new RateLimitedError(ERROR_OWN_MESSAGE, { retryAfterMs: 2500 });
  return new TransportError(ERROR_OWN_MESSAGE, { timedOut: kind === 'timeout' });
}

/**
 * The request's user, from headers: none → anonymous (null); `x-user: throw`
 * → the context function throws; else the user, plan `pro` (on for `dark-mode`).
 */
function abContextOf(headers: Record<string, string | string[] | undefined>): AbContext | null {
  const user = headers['x-user'];
  if (typeof user !== 'string') return null;
  if (user === 'throw') throw new Error('session store down');
  return { userId: user, attributes: { plan: 'pro' } };
}

/** A logger that keeps its warnings and errors. */
function capturedLogger(): VaneLogger & { readonly warnings: string[]; readonly errors: string[] } {
  const warnings: string[] = [];
  const errors: string[] = [];
  return {
    warnings,
    errors,
    debug: () => undefined,
    info: () => undefined,
    warn: (m) => void warnings.push(m),
    error: (m) => void errors.push(m),
  };
}

/** What every driver builds, for the rows. */
interface ParityApp {
  /** The app's HTTP server (supertest target). */
  readonly server: Server;
  /** Declares a flag guard with `key` the adapter's way (throws as the adapter does). */
  declare(key: string): unknown;
  close(): Promise<void>;
}

/** What a driver gets from the suite. */
interface DriverSetup {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly dispatcher: CountingDispatcher['dispatcher'];
  readonly logger: VaneLogger;
}

/**
 * Builds a real app with the routes:
 * `/plain` (new-checkout, on), `/off` (beta, off), `/typo` (undefined flag),
 * `/custom-off`, `/custom-typo` and `/custom-ab` (a custom refusal answering
 * 418 with the denial), `/ab` (dark-mode, A/B), `/ab-many` (dark-mode and
 * big-banner, A/B, two guards where the adapter has them), `/secret`
 * (reads a secret that does not exist, strictly), `/vane-error/:kind` (the
 * handler lets a typed error of the client escape: {@link vaneErrorOf}).
 */
type Driver = (setup: DriverSetup) => Promise<ParityApp>;

const nestDriver: Driver = async ({ baseUrl, apiKey, dispatcher, logger }) => {
  const refuse = (denial: FlagDenial): Error => new HttpException(denial, 418);
  @Controller()
  class ParityController {
    @FeatureFlag('new-checkout')
    @Get('plain')
    plain(): { ok: true } {
      return { ok: true };
    }
    @FeatureFlag('beta')
    @Get('off')
    off(): { ok: true } {
      return { ok: true };
    }
    @FeatureFlag(TYPO)
    @Get('typo')
    typo(): { ok: true } {
      return { ok: true };
    }
    @FeatureFlag('beta', { exception: refuse })
    @Get('custom-off')
    customOff(): { ok: true } {
      return { ok: true };
    }
    @FeatureFlag(TYPO, { exception: refuse })
    @Get('custom-typo')
    customTypo(): { ok: true } {
      return { ok: true };
    }
    @FeatureFlag('new-pricing', { ab: true, exception: refuse })
    @Get('custom-ab')
    customAb(): { ok: true } {
      return { ok: true };
    }
    @FeatureFlag('dark-mode', { ab: true })
    @Get('ab')
    ab(): { ok: true } {
      return { ok: true };
    }
    @FeatureFlag(['dark-mode', 'big-banner'], { ab: true })
    @Get('ab-many')
    abMany(): { ok: true } {
      return { ok: true };
    }
    @Get('secret')
    secret(@Secret(MISSING_SECRET) value: string): string {
      return value;
    }
    @Get('vane-error/:kind')
    vaneError(@Param('kind') kind: string): never {
      throw vaneErrorOf(kind);
    }
  }
  const moduleRef = await Test.createTestingModule({
    imports: [
      VaneModule.forRoot({
        baseUrl,
        apiKey,
        dispatcher,
        logger,
        abContext: (context: ExecutionContext) =>
          abContextOf(context.switchToHttp().getRequest<{ headers: Record<string, string> }>().headers),
      }),
    ],
    controllers: [ParityController],
  }).compile();
  const app: INestApplication = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return {
    server: app.getHttpServer() as Server,
    declare: (key) => FeatureFlag(key),
    close: () => app.close(),
  };
};

const expressDriver: Driver = async ({ baseUrl, apiKey, dispatcher, logger }) => {
  const vane = await createVane({ baseUrl, apiKey, dispatcher, logger, abContext: (req) => abContextOf(req.headers) });
  const handler = (_req: express.Request, res: express.Response, _next: express.NextFunction, denial: FlagDenial) =>
    void res.status(418).json(denial);
  const ok: express.RequestHandler = (_req, res) => void res.json({ ok: true });
  const app = express();
  app.use(vane.middleware());
  app.get('/plain', vane.requireFlag('new-checkout'), ok);
  app.get('/off', vane.requireFlag('beta'), ok);
  app.get('/typo', vane.requireFlag(TYPO), ok);
  app.get('/custom-off', vane.requireFlag('beta', { handler }), ok);
  app.get('/custom-typo', vane.requireFlag(TYPO, { handler }), ok);
  app.get('/custom-ab', vane.requireFlag('new-pricing', { ab: true, handler }), ok);
  app.get('/ab', vane.requireFlag('dark-mode', { ab: true }), ok);
  app.get('/ab-many', vane.requireFlag('dark-mode', { ab: true }), vane.requireFlag('big-banner', { ab: true }), ok);
  app.get(
    '/secret',
    (req, res) => void res.send((req as unknown as { vane: RequestVane }).vane.requireSecret(MISSING_SECRET)),
  );
  app.get('/vane-error/:kind', (req) => {
    throw vaneErrorOf(req.params['kind']!);
  });
  app.use(vane.errorHandler());
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    server,
    declare: (key) => vane.requireFlag(key),
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await vane.close();
    },
  };
};

const fastifyDriver: Driver = async ({ baseUrl, apiKey, dispatcher, logger }) => {
  const app = Fastify({ logger: false });
  await app.register(vanePlugin, {
    baseUrl,
    apiKey,
    dispatcher,
    logger,
    abContext: (req) => abContextOf(req.headers),
  });
  const handler = (_request: unknown, reply: { code(n: number): { send(b: unknown): unknown } }, denial: FlagDenial) =>
    reply.code(418).send(denial);
  const ok = async (): Promise<{ ok: true }> => ({ ok: true });
  app.get('/plain', { config: { vane: { flags: 'new-checkout' } } }, ok);
  app.get('/off', { config: { vane: { flags: 'beta' } } }, ok);
  app.get('/typo', { config: { vane: { flags: TYPO } } }, ok);
  app.get('/custom-off', { config: { vane: { flags: 'beta', handler } } }, ok);
  app.get('/custom-typo', { config: { vane: { flags: TYPO, handler } } }, ok);
  app.get('/custom-ab', { config: { vane: { flags: 'new-pricing', ab: true, handler } } }, ok);
  app.get('/ab', { config: { vane: { flags: 'dark-mode', ab: true } } }, ok);
  app.get(
    '/ab-many',
    {
      config: {
        vane: [
          { flags: 'dark-mode', ab: true },
          { flags: 'big-banner', ab: true },
        ],
      },
    },
    ok,
  );
  app.get('/secret', async (req) => req.vane.requireSecret(MISSING_SECRET));
  app.get<{ Params: { kind: string } }>('/vane-error/:kind', async (req) => {
    throw vaneErrorOf(req.params.kind);
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { server: app.server, declare: (key) => app.vane.requireFlag(key), close: () => app.close() };
};

/** One row per adapter: add the next one here. */
const DRIVERS: ReadonlyArray<readonly [string, Driver]> = [
  ['@vane/nestjs (Express platform)', nestDriver],
  ['@vane/express', expressDriver],
  ['@vane/fastify', fastifyDriver],
];

/** The body of an answer, with `path` replaced, to compare a refusal with the platform's own 404. */
function withoutPath(res: request.Response, path: string): string {
  return res.text.split(path).join('<path>');
}

describe.each(DRIVERS)('adapter parity: %s', (_name, driver) => {
  let server: VaneServer;
  let http: CountingDispatcher;
  let app: ParityApp;
  const logger = capturedLogger();
  let users = 0;
  const user = (): string => `parity-user-${++users}`;

  beforeAll(async () => {
    server = await startVaneServer({ seed: adapterSeed(), port: 0 });
    http = new CountingDispatcher();
    app = await driver({
      baseUrl: server.baseUrl('shop'),
      apiKey: server.secretKey('shop'),
      dispatcher: http.dispatcher,
      logger,
    });
  }, 30_000);

  afterAll(async () => {
    await app?.close();
    await http?.close();
    await server?.close();
  });

  /** Runs `fn` and returns the warnings logged meanwhile. */
  async function warningsDuring(fn: () => Promise<unknown>): Promise<string[]> {
    const before = logger.warnings.length;
    await fn();
    return logger.warnings.slice(before);
  }

  it('a flag that is on lets the request through (200)', async () => {
    await request(app.server).get('/plain').expect(200, { ok: true });
  });

  it('a flag that is off answers the platform’s own 404', async () => {
    const off = await request(app.server).get('/off').expect(404);
    const unknown = await request(app.server).get('/no-such-route').expect(404);
    expect(withoutPath(off, '/off')).toBe(withoutPath(unknown, '/no-such-route'));
  });

  it('an undefined flag answers 404, and the start warned naming the key', async () => {
    await request(app.server).get('/typo').expect(404);
    const warned = logger.warnings.filter((w) => w.includes(`unknown flag "${TYPO}"`));
    expect(warned.length).toBeGreaterThanOrEqual(1);
    expect(warned.join('\n')).toMatch(/has no such flag/);
  });

  it('a custom refusal gets the same denial shape {key, reason, ab}', async () => {
    const off = await request(app.server).get('/custom-off').expect(418);
    expect(off.body).toEqual({ key: 'beta', reason: 'off', ab: false });
    const typo = await request(app.server).get('/custom-typo').expect(418);
    expect(typo.body).toEqual({ key: TYPO, reason: 'undefined', ab: false });
    const ab = await request(app.server).get('/custom-ab').set('x-user', user()).expect(418);
    expect(ab.body).toEqual({ key: 'new-pricing', reason: 'off', ab: true });
  });

  it('an A/B flag: the user in → 200; anonymous (null) → 404 without an evaluate-ab call', async () => {
    await request(app.server).get('/ab').set('x-user', user()).expect(200, { ok: true });
    const calls = http.count(EVALUATE_AB);
    await request(app.server).get('/ab').expect(404);
    expect(http.count(EVALUATE_AB)).toBe(calls);
  });

  it('a throwing abContext fails closed: 404 and one warning', async () => {
    const warnings = await warningsDuring(() => request(app.server).get('/ab').set('x-user', 'throw').expect(404));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/abContext failed.*anonymous/);
    expect(warnings[0]).toContain('session store down');
  });

  it('the A/B add-on off fails closed: 404 and one warning', async () => {
    await adminRequest(server, 'PUT', 'tenant', { ab_addon: false });
    try {
      const warnings = await warningsDuring(() => request(app.server).get('/ab').set('x-user', user()).expect(404));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/A\/B evaluation of "dark-mode" failed \(VANE_ADDON_NOT_AVAILABLE\)/);
    } finally {
      await adminRequest(server, 'PUT', 'tenant', { ab_addon: true });
    }
  });

  it('several A/B flags of one request cost one evaluate-ab call', async () => {
    const calls = http.count(EVALUATE_AB);
    await request(app.server).get('/ab-many').set('x-user', user()).expect(200, { ok: true });
    expect(http.count(EVALUATE_AB)).toBe(calls + 1);
  });

  it('an invalid flag key is refused where the guard is declared, by the same rule', () => {
    let thrown: unknown;
    try {
      app.declare('bad key!');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toMatchObject({
      code: 'VANE_INVALID_ARGUMENT',
      message: expect.stringMatching(/flag keys are 1 to 256 characters from \[A-Za-z0-9._-\]/) as unknown,
    });
  });

  it('a missing secret answers 500, naming neither key nor value to the caller', async () => {
    const res = await request(app.server).get('/secret').expect(500);
    expect(res.text).not.toContain(MISSING_SECRET);
    expect(res.text).not.toContain(server.secretKey('shop'));
  });

  it.each([
    ['rate-limited', 503, 'VANE_RATE_LIMITED', '3'],
    ['timeout', 504, 'VANE_TRANSPORT', undefined],
    ['unreachable', 502, 'VANE_TRANSPORT', undefined],
  ] as const)(
    'a typed error a handler lets escape (%s) answers %i with the shared body and Retry-After',
    async (kind, status, code, retryAfter) => {
      const errorsBefore = logger.errors.length;
      const res = await request(app.server).get(`/vane-error/${kind}`);
      expect(res.status).toBe(status);
      expect(res.headers['retry-after']).toBe(retryAfter);
      expect(res.body).toEqual({ statusCode: status, code, message: VANE_ERROR_ANSWERS[code].message });
      expect(res.text).not.toContain('svs_never_in_an_answer');
      // Logged once, as an error, with the code (the client's messages hold no key and no value).
      expect(logger.errors.slice(errorsBefore)).toEqual([expect.stringContaining(`${status} ${code}`)]);
    },
  );

  it('a failed initial sync rejects with the client’s typed error and logs the fix-it line', async () => {
    const own = capturedLogger();
    await expect(
      driver({
        baseUrl: server.baseUrl('shop'),
        apiKey: 'svs_shop_not_a_key_of_this_service',
        dispatcher: http.dispatcher,
        logger: own,
      }),
    ).rejects.toMatchObject({ code: 'VANE_UNAUTHORIZED' });
    expect(own.errors.join('\n')).toMatch(
      /initial sync failed, the app cannot start \(VANE_UNAUTHORIZED\).*\n {2}What to do: wrong key/,
    );
    expect(own.errors.join('\n')).not.toContain('svs_shop_not_a_key_of_this_service');
  }, 30_000);

  it('a draining server’s goaway moves the app to the next server: no error raised, no polling fallback', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vane-parity-drain-'));
    const statePath = join(dir, 'state.json');
    const first = await startVaneServer({ seed: adapterSeed(), statePath, drainWindowMs: 500, drainTimeoutMs: 5000 });
    const own = capturedLogger();
    const drainedApp = await driver({
      baseUrl: first.baseUrl('shop'),
      apiKey: first.secretKey('shop'),
      dispatcher: http.dispatcher,
      logger: own,
    });
    let second: VaneServer | undefined;
    try {
      await until(() => first.stats().streams === 1, 'the app’s stream');
      await first.drain();
      // Between the two servers the app answers from what it holds.
      await request(drainedApp.server).get('/plain').expect(200, { ok: true });
      // The same state file, the same port: a restarted replica (a file store has one owner at a time).
      second = await startVaneServer({ statePath, port: first.port });
      const next = second;
      await until(() => next.stats().streams === 1, 'the app’s stream on the next server', { timeoutMs: 20_000 });
      next.admin.patchFlag('shop', 'new-checkout', { is_enabled: false });
      await until(
        async () => (await request(drainedApp.server).get('/plain')).status === 404,
        'the change to reach the app',
        { timeoutMs: 20_000 },
      );
      // goaway is no transport error: no stream ended by the server was counted (the only warning
      // possible is a reconnect that met neither server listening, in the instant between them).
      expect(own.warnings.filter((w) => w.includes('closed by the server') || w.includes('polling now'))).toEqual([]);
      expect(own.errors).toEqual([]);
    } finally {
      await drainedApp.close();
      await second?.close();
      await first.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
