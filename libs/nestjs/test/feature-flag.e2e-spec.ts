import {
  Controller,
  Get,
  HttpException,
  HttpStatus,
  Logger,
  Module,
  type ExecutionContext,
  type INestApplication,
} from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { VaneClient } from '@vane/client';
import { startVaneServer, type VaneServer } from '@vane/server';
import request from 'supertest';
import {
  FeatureFlag,
  FeatureFlagGuard,
  Flag,
  VaneModule,
  type FeatureFlagDenial,
  type FeatureFlagMetadata,
  type VaneContextFactory,
} from '../src/index.js';
import { createApp } from './support/app.js';
import { KEYS, nestSeed } from './support/seed.js';
import { adminPut, waitForChange } from '@vane/server/testing';
import { FaultProxy } from '@vane/test-harness';

class PaymentRequiredException extends HttpException {
  constructor(denial: FeatureFlagDenial) {
    super({ message: `feature ${denial.key} is not in your plan`, reason: denial.reason }, HttpStatus.PAYMENT_REQUIRED);
  }
}

@FeatureFlag('beta')
@Controller('beta')
class BetaController {
  @Get('page')
  page(): string {
    return 'beta page';
  }
  @FeatureFlag('new-checkout')
  @Get('checkout')
  checkout(): string {
    return 'checkout (handler flag wins)';
  }
}

@Controller()
class ShopController {
  @Get('open')
  open(): string {
    return 'open';
  }
  @FeatureFlag('new-checkout')
  @Get('checkout')
  checkout(): string {
    return 'new checkout';
  }
  @FeatureFlag('no-such-flag')
  @Get('typo')
  typo(): string {
    return 'never';
  }
  @FeatureFlag('beta', { exception: 403 })
  @Get('forbidden')
  forbidden(): string {
    return 'never';
  }
  @FeatureFlag('beta', { exception: (denial) => new PaymentRequiredException(denial) })
  @Get('custom')
  custom(): string {
    return 'never';
  }
  @FeatureFlag(['new-checkout', 'beta'])
  @Get('both')
  both(): string {
    return 'both';
  }
  @FeatureFlag('new-pricing', { ab: true })
  @Get('pricing')
  pricing(
    @Flag('dark-mode', { ab: true }) dark: boolean,
    @Flag('fast-search', { ab: true }) fast: boolean,
    @Flag('new-checkout') checkout: boolean,
  ): object {
    return { pricing: 'new', dark, fast, checkout };
  }
  @Get('flags')
  flags(
    @Flag('dark-mode', { ab: true }) dark: boolean,
    @Flag('fast-search', { ab: true }) fast: boolean,
    @Flag('beta') beta: boolean,
  ): object {
    return { dark, fast, beta };
  }
}

/** The A/B user: `x-user` header as id, `x-country` and `x-plan` as attributes. */
const abContext: VaneContextFactory = (ctx) => {
  const req = ctx.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>();
  const userId = req.headers['x-user'];
  return userId
    ? { userId, attributes: { country: req.headers['x-country'], plan: req.headers['x-plan'] } }
    : undefined;
};

describe('@FeatureFlag()', () => {
  let server: VaneServer;
  let proxy: FaultProxy;
  let app: INestApplication;

  beforeAll(async () => {
    server = await startVaneServer({ seed: nestSeed(), port: 0 });
    proxy = await FaultProxy.start(server.port);
    app = await createApp({
      imports: [
        VaneModule.forRoot({ baseUrl: proxy.baseUrl('shop'), apiKey: KEYS.shopSecret, abContext, startupCheck: 'off' }),
      ],
      controllers: [ShopController, BetaController],
    });
  });
  afterAll(async () => {
    await app.close();
    await proxy.close();
    await server.close();
  });

  it('lets a request through while the flag is on, and leaves unguarded routes alone', async () => {
    await request(app.getHttpServer()).get('/checkout').expect(200, 'new checkout');
    await request(app.getHttpServer()).get('/open').expect(200, 'open');
  });

  it('answers 404 by default, looking like an absent route, for a flag that is off or undefined', async () => {
    const off = await request(app.getHttpServer()).get('/beta/page').expect(404);
    expect(off.body).toEqual({ statusCode: 404, error: 'Not Found', message: 'Cannot GET /beta/page' });
    await request(app.getHttpServer()).get('/typo').expect(404);
  });

  it("words the 404 exactly like Express's own route-not-found answer, query included", async () => {
    const absent = await request(app.getHttpServer()).get('/no-such-route?page=2').expect(404);
    const refused = await request(app.getHttpServer()).get('/beta/page?page=2').expect(404);
    expect(absent.body).toEqual({ statusCode: 404, error: 'Not Found', message: 'Cannot GET /no-such-route?page=2' });
    expect(refused.body).toEqual({ ...absent.body, message: 'Cannot GET /beta/page?page=2' });
  });

  it('on a controller applies to every handler, and a handler decorator wins over it', async () => {
    await request(app.getHttpServer()).get('/beta/page').expect(404);
    await request(app.getHttpServer()).get('/beta/checkout').expect(200, 'checkout (handler flag wins)');
  });

  it('can answer 403 or an exception of the user', async () => {
    await request(app.getHttpServer()).get('/forbidden').expect(403);
    const custom = await request(app.getHttpServer()).get('/custom').expect(402);
    expect(custom.body).toEqual({ message: 'feature beta is not in your plan', reason: 'off' });
  });

  it('with several keys requires all of them', async () => {
    await request(app.getHttpServer()).get('/both').expect(404);
  });

  it('a flag flipped through the admin API changes what the route answers, without a restart', async () => {
    const client = app.get(VaneClient);
    const on = waitForChange(client, (e) => e.kind === 'flag' && e.key === 'beta' && e.newValue === true);
    await adminPut(server, 'services/shop/flags/beta', {
      is_enabled: true,
      starts_at: null,
      ends_at: null,
    });
    await on;
    await request(app.getHttpServer()).get('/beta/page').expect(200, 'beta page');
    await request(app.getHttpServer()).get('/both').expect(200, 'both');

    const off = waitForChange(client, (e) => e.kind === 'flag' && e.key === 'beta' && e.newValue === false);
    await adminPut(server, 'services/shop/flags/beta', {
      is_enabled: false,
      starts_at: null,
      ends_at: null,
    });
    await off;
    await request(app.getHttpServer()).get('/beta/page').expect(404);
  });

  describe('A/B ({ ab: true })', () => {
    it('evaluates for the requesting user (cohort country in DE/FR)', async () => {
      await request(app.getHttpServer()).get('/pricing').set('x-user', 'u-1').set('x-country', 'DE').expect(200);
      await request(app.getHttpServer()).get('/pricing').set('x-user', 'u-1').set('x-country', 'US').expect(404);
    });

    it('an anonymous request (no user from the context factory) is refused, with no call', async () => {
      const before = proxy.count('/v1/flags/evaluate-ab');
      await request(app.getHttpServer()).get('/pricing').expect(404);
      expect(proxy.count('/v1/flags/evaluate-ab')).toBe(before);
    });

    it('sends every A/B flag one request needs (guard + parameters) in one evaluate-ab call', async () => {
      const before = proxy.count('/v1/flags/evaluate-ab');
      const res = await request(app.getHttpServer())
        .get('/pricing')
        .set('x-user', 'u-42')
        .set('x-country', 'FR')
        .set('x-plan', 'pro')
        .expect(200);
      expect(res.body).toEqual({ pricing: 'new', dark: true, fast: true, checkout: true });
      const calls = proxy.requests.filter((r) => r.path === '/v1/flags/evaluate-ab').slice(before);
      expect(calls).toHaveLength(1);
      expect(JSON.parse(calls[0]!.body)).toEqual({
        keys: ['new-pricing', 'dark-mode', 'fast-search'],
        user_id: 'u-42',
        attributes: { country: 'FR', plan: 'pro' },
      });
    });

    it('fails closed, logging the error code, when the A/B add-on is off for the tenant (403)', async () => {
      const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      server.admin.setTenant({ ab_addon: false });
      try {
        // A user not asked before: u-1's answers are cached, and served until the client has the new revision.
        await request(app.getHttpServer()).get('/pricing').set('x-user', 'u-2').set('x-country', 'DE').expect(404);
        expect(warn).toHaveBeenCalledWith(
          expect.stringMatching(
            /A\/B evaluation of "new-pricing", "dark-mode", "fast-search" failed \(VANE_ADDON_NOT_AVAILABLE\), treating them as off/,
          ),
        );
      } finally {
        server.admin.setTenant({ ab_addon: true });
        warn.mockRestore();
      }
    });

    it('batches the @Flag() parameters of an unguarded route too, one call per request', async () => {
      const before = proxy.count('/v1/flags/evaluate-ab');
      const a = await request(app.getHttpServer()).get('/flags').set('x-user', 'u-7').set('x-plan', 'free').expect(200);
      expect(a.body).toEqual({ dark: true, fast: false, beta: false });
      await request(app.getHttpServer())
        .get('/flags')
        .set('x-user', 'u-8')
        .set('x-plan', 'pro')
        .expect(200, { dark: true, fast: true, beta: false });
      expect(proxy.count('/v1/flags/evaluate-ab') - before).toBe(2);
    });

    it("a returning user costs no call: the guard and @Flag() share the client's answers until a rule changes", async () => {
      const client = app.get(VaneClient);
      const calls = () => proxy.count('/v1/flags/evaluate-ab');
      const before = calls();
      const returning = (path: string) =>
        request(app.getHttpServer()).get(path).set('x-user', 'u-back').set('x-country', 'DE').set('x-plan', 'pro');
      await returning('/pricing').expect(200, { pricing: 'new', dark: true, fast: true, checkout: true });
      // From here the answers are cached: the guard and @Flag() decide synchronously, without evaluateAb.
      const asked = jest.spyOn(client, 'evaluateAb');
      for (let i = 0; i < 2; i++) {
        await returning('/pricing').expect(200, { pricing: 'new', dark: true, fast: true, checkout: true });
      }
      // Another route, the same user and flags: answered from the same cache.
      await returning('/flags').expect(200, { dark: true, fast: true, beta: false });
      expect(asked).not.toHaveBeenCalled();
      asked.mockRestore();
      expect(calls() - before).toBe(1);
      expect(client.abCacheStats.hits).toBeGreaterThanOrEqual(8);

      // Only fast-search's rule changes (pro no longer in): a new revision, so the next request asks again.
      const applied = waitForChange(client, (e) => e.key === 'search.rule.changed');
      await adminPut(server, 'services/shop/flags/fast-search', {
        is_enabled: true,
        ab: { percentage: 0, salt: 'fs-1', cohorts: [] },
      });
      await adminPut(server, 'services/shop/configs/search.rule.changed', { value: true });
      await applied; // patches apply in order: the rule's revision is in
      await returning('/flags').expect(200, { dark: true, fast: false, beta: false });
      expect(calls() - before).toBe(2);
    });
  });
});

describe('FeatureFlagGuard as a global guard', () => {
  let server: VaneServer;
  let app: INestApplication;

  @Controller()
  class GlobalController {
    @Get('free')
    free(): string {
      return 'free';
    }
    @FeatureFlag('beta')
    @Get('beta')
    beta(): string {
      return 'beta';
    }
  }

  @Module({ controllers: [GlobalController] })
  class FeatureModule {}

  beforeAll(async () => {
    server = await startVaneServer({ seed: nestSeed(), port: 0 });
    app = await createApp({
      imports: [
        VaneModule.forRoot({
          isGlobal: true,
          baseUrl: server.baseUrl('shop'),
          apiKey: KEYS.shopSecret,
          flagException: 403,
        }),
        FeatureModule,
      ],
      providers: [{ provide: APP_GUARD, useClass: FeatureFlagGuard }],
    });
  });
  afterAll(async () => {
    await app.close();
    await server.close();
  });

  it('guards decorated routes with the module-wide exception and passes the others', async () => {
    await request(app.getHttpServer()).get('/free').expect(200, 'free');
    await request(app.getHttpServer()).get('/beta').expect(403);
    const on = waitForChange(app.get(VaneClient), (e) => e.key === 'beta');
    server.admin.setFlag('shop', 'beta', { is_enabled: true });
    await on;
    await request(app.getHttpServer()).get('/beta').expect(200, 'beta');
  });
});

describe('a FeatureFlagGuard subclass as the global guard', () => {
  let server: VaneServer;
  let app: INestApplication;

  class InternalBypassGuard extends FeatureFlagGuard {
    protected override shouldSkip(context: ExecutionContext): boolean {
      return (
        context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>().headers['x-internal'] ===
        'yes'
      );
    }
    protected override createException(denial: FeatureFlagDenial): Error {
      return new HttpException({ flag: denial.key, reason: denial.reason }, HttpStatus.SERVICE_UNAVAILABLE);
    }
  }

  @Controller()
  class DarkController {
    @FeatureFlag('beta')
    @Get('dark')
    dark(): string {
      return 'dark';
    }
  }

  beforeAll(async () => {
    server = await startVaneServer({ seed: nestSeed(), port: 0 });
    app = await createApp({
      imports: [VaneModule.forRoot({ baseUrl: server.baseUrl('shop'), apiKey: KEYS.shopSecret })],
      controllers: [DarkController],
      providers: [{ provide: APP_GUARD, useClass: InternalBypassGuard }],
    });
  });
  afterAll(async () => {
    await app.close();
    await server.close();
  });

  it("decides, and the decorator's own guard does not overrule it", async () => {
    const refused = await request(app.getHttpServer()).get('/dark').expect(503);
    expect(refused.body).toEqual({ flag: 'beta', reason: 'off' });
    await request(app.getHttpServer()).get('/dark').set('x-internal', 'yes').expect(200, 'dark');
  });
});

describe('a FeatureFlagGuard subclass that reads requirements its own way', () => {
  let server: VaneServer;
  let proxy: FaultProxy;
  let app: INestApplication;

  /** Requirements from a table of the app's own instead of @FeatureFlag(): both A/B flags for /experiments. */
  class TableGuard extends FeatureFlagGuard {
    protected override getRequirement(context: ExecutionContext): FeatureFlagMetadata | undefined {
      return context.getHandler().name === 'experiments'
        ? { keys: ['dark-mode', 'fast-search'], ab: true }
        : super.getRequirement(context);
    }
  }

  @Controller()
  class ExperimentsController {
    @Get('experiments')
    experiments(): string {
      return 'in';
    }
  }

  beforeAll(async () => {
    server = await startVaneServer({ seed: nestSeed(), port: 0 });
    proxy = await FaultProxy.start(server.port);
    app = await createApp({
      imports: [
        VaneModule.forRoot({
          baseUrl: proxy.baseUrl('shop'),
          apiKey: KEYS.shopSecret,
          startupCheck: 'off',
          abContext: (context) => {
            const plan = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>().headers[
              'x-plan'
            ];
            return plan === undefined ? null : { userId: 'u-table', attributes: { plan } };
          },
        }),
      ],
      controllers: [ExperimentsController],
      providers: [{ provide: APP_GUARD, useClass: TableGuard }],
    });
  });
  afterAll(async () => {
    await app.close();
    await proxy.close();
    await server.close();
  });

  it("plans the request's A/B call from the subclass's requirement: one evaluate-ab call for both flags", async () => {
    const before = proxy.count('/v1/flags/evaluate-ab');
    await request(app.getHttpServer()).get('/experiments').set('x-plan', 'pro').expect(200, 'in');
    expect(proxy.count('/v1/flags/evaluate-ab')).toBe(before + 1);
    await request(app.getHttpServer()).get('/experiments').set('x-plan', 'free').expect(404);
    expect(proxy.count('/v1/flags/evaluate-ab')).toBe(before + 2);
  });
});
