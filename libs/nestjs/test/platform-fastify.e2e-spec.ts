import { Controller, Get, Logger, UseGuards, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { startVaneServer, type VaneServer } from '@vane/server';
import request from 'supertest';
import { abContextFromRequest } from '../../../sample-app/src/ab-context.factory.js';
import {
  FeatureFlag,
  Flag,
  Secret,
  VaneModule,
  type VaneContextFactory,
  type VaneModuleOptions,
} from '../src/index.js';
import { KEYS, nestSeed } from './support/seed.js';
import { FaultProxy } from '@vane/test-harness';

@Controller()
class ShopController {
  @FeatureFlag('new-checkout')
  @Get('checkout')
  checkout(): object {
    return { checkout: 'new' };
  }
  @FeatureFlag('beta')
  @Get('beta')
  beta(): string {
    return 'never';
  }
  @FeatureFlag('beta', { exception: 403 })
  @Get('beta-forbidden')
  forbidden(): string {
    return 'never';
  }
  @FeatureFlag('new-pricing', { ab: true })
  @Get('pricing')
  pricing(@Flag('dark-mode', { ab: true }) dark: boolean): object {
    return { pricing: 'new', dark };
  }
  @Get('key')
  key(@Secret('stripe.api_key') key: string): object {
    return { key };
  }
  @Get('missing')
  missing(@Secret('no.such.secret') value: string): object {
    return { value };
  }
}

/** What an authentication guard (Passport's, say) does: leaves the user on the Fastify request. */
class UserFromHeaderGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<{ headers: Record<string, unknown>; user?: unknown }>();
    if (typeof req.headers['x-user-id'] === 'string') req.user = { id: req.headers['x-user-id'] };
    return true;
  }
}

@UseGuards(UserFromHeaderGuard)
@Controller('me')
class MeController {
  @Get('dark')
  dark(@Flag('dark-mode', { ab: true }) dark: boolean): object {
    return { dark };
  }
}

// #region fastify-app
async function createFastifyApp(vane: VaneModuleOptions): Promise<NestFastifyApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [VaneModule.forRoot(vane)],
    controllers: [ShopController, MeController],
  }).compile();
  const app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
  await app.init();
  await app.getHttpAdapter().getInstance().ready(); // Fastify's routes exist once it is ready
  return app;
}
// #endregion fastify-app

describe('on Fastify (@nestjs/platform-fastify)', () => {
  let server: VaneServer;
  let proxy: FaultProxy;
  let app: NestFastifyApplication;

  beforeAll(async () => {
    server = await startVaneServer({ seed: nestSeed(), port: 0 });
    proxy = await FaultProxy.start(server.port);
    // The root README's A/B context (the sample app's), which reads headers and query as both platforms give them.
    app = await createFastifyApp({
      baseUrl: proxy.baseUrl('shop'),
      apiKey: KEYS.shopSecret,
      abContext: abContextFromRequest,
      startupCheck: 'off',
    });
  });
  afterAll(async () => {
    await app.close();
    await proxy.close();
    await server.close();
  });

  it('serves a route whose flag is on', async () => {
    await request(app.getHttpServer()).get('/checkout').expect(200, { checkout: 'new' });
  });

  it("refuses a route whose flag is off with Fastify's own route-not-found answer, query included", async () => {
    const absent = await request(app.getHttpServer()).get('/no-such-route?page=2').expect(404);
    const refused = await request(app.getHttpServer()).get('/beta?page=2').expect(404);
    expect(absent.body).toEqual({ statusCode: 404, error: 'Not Found', message: 'Cannot GET /no-such-route?page=2' });
    expect(refused.body).toEqual({ ...absent.body, message: 'Cannot GET /beta?page=2' });
    expect(refused.headers['content-type']).toBe(absent.headers['content-type']);
  });

  it('answers 403 when the decorator says so', async () => {
    await request(app.getHttpServer()).get('/beta-forbidden').expect(403);
  });

  it("evaluates A/B flags with the README's context factory, from headers or from the query", async () => {
    const before = proxy.count('/v1/flags/evaluate-ab');
    await request(app.getHttpServer())
      .get('/pricing')
      .set('x-user-id', 'u-1')
      .set('x-country', 'DE')
      .expect(200, { pricing: 'new', dark: true });
    expect(proxy.count('/v1/flags/evaluate-ab')).toBe(before + 1); // guard and @Flag() share one call
    await request(app.getHttpServer()).get('/pricing?user=u-1&country=FR').expect(200, { pricing: 'new', dark: true });
    await request(app.getHttpServer()).get('/pricing?user=u-1&country=US').expect(404);
    await request(app.getHttpServer()).get('/pricing').expect(404); // anonymous
  });

  it('injects @Secret(), and answers a missing one with a generic 500 (the key only in the log)', async () => {
    await request(app.getHttpServer()).get('/key').expect(200, { key: 'rk_test_v1' });
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      const res = await request(app.getHttpServer()).get('/missing').expect(500);
      expect(res.body).toEqual({ statusCode: 500, message: 'Internal server error' });
      expect(error).toHaveBeenCalledWith(expect.stringContaining('"no.such.secret"'));
    } finally {
      error.mockRestore();
    }
  });
});

describe('on Fastify, the default A/B context and a failing one', () => {
  let server: VaneServer;

  beforeAll(async () => {
    server = await startVaneServer({ seed: nestSeed(), port: 0 });
  });
  afterAll(async () => {
    await server.close();
  });

  it('the default context reads request.user, as Passport sets it on a Fastify request', async () => {
    const app = await createFastifyApp({
      baseUrl: server.baseUrl('shop'),
      apiKey: KEYS.shopSecret,
      startupCheck: 'off',
    });
    try {
      await request(app.getHttpServer()).get('/me/dark').set('x-user-id', 'u-9').expect(200, { dark: true });
      await request(app.getHttpServer()).get('/me/dark').expect(200, { dark: false }); // anonymous: A/B flags off
    } finally {
      await app.close();
    }
  });

  it.each<[string, VaneContextFactory]>([
    [
      'throws',
      () => {
        throw new TypeError("Cannot read properties of undefined (reading 'get')");
      },
    ],
    ['rejects', () => Promise.reject(new Error('session store down'))],
  ])('a context factory that %s fails closed (404, one warning), never a 500', async (_how, abContext) => {
    const app = await createFastifyApp({
      baseUrl: server.baseUrl('shop'),
      apiKey: KEYS.shopSecret,
      abContext,
      startupCheck: 'off',
    });
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const res = await request(app.getHttpServer()).get('/pricing').expect(404);
      expect(res.body).toEqual({ statusCode: 404, error: 'Not Found', message: 'Cannot GET /pricing' });
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn).toHaveBeenCalledWith(expect.stringMatching(/abContext failed.*treating the request as anonymous/));
    } finally {
      warn.mockRestore();
      await app.close();
    }
  });
});
