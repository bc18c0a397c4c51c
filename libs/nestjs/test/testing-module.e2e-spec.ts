import { Controller, Get, Logger, Module, type ExecutionContext, type INestApplication } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { Test, type TestingModule } from '@nestjs/testing';
import { VaneClient, type AbContext } from '@vane/client';
import { startVaneServer } from '@vane/server';
import { firstValueFrom, take, toArray, timeout } from 'rxjs';
import request from 'supertest';
import { FeatureFlag, Flag, Secret, VaneModule, VaneObservables, VANE_MODULE_OPTIONS } from '../src/index.js';
import { VaneTestingBackend, VaneTestingModule } from '../src/testing/index.js';
import { KEYS, nestSeed } from './support/seed.js';

@Controller()
class CheckoutController {
  constructor(private readonly vane: VaneClient) {}
  @FeatureFlag('new-checkout')
  @Get('checkout')
  checkout(@Secret('stripe.api_key') key: string): object {
    return { key, currency: this.vane.config('currency', 'EUR') };
  }
  @FeatureFlag('new-pricing', { ab: true })
  @Get('pricing')
  pricing(@Flag('dark-mode', { ab: true }) dark: boolean): object {
    return { dark };
  }
}

/** The app as it is written for production: VaneModule.forRoot() with the real service. */
@Module({
  imports: [
    VaneModule.forRoot({
      isGlobal: true,
      baseUrl: 'https://shop.vane.invalid',
      apiKey: 'svs_production_key',
      abContext: (ctx) => abContext(ctx),
    }),
  ],
  controllers: [CheckoutController],
})
class AppModule {}

const abContext = (ctx: ExecutionContext): AbContext | undefined => {
  const user = ctx.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>().headers['x-user'];
  return user ? { userId: user } : undefined;
};

const values = {
  configs: { currency: 'CHF' },
  flags: { 'new-checkout': true, 'new-pricing': true, 'dark-mode': true },
  secrets: { 'stripe.api_key': 'sk_test_fixed' },
  ab: { 'new-pricing': ({ userId }: { userId: string }) => userId.startsWith('beta-'), 'dark-mode': false },
};

describe.each([
  [
    'VaneTestingBackend.createClient() in place of the client of an unchanged AppModule',
    async (): Promise<TestingModule> => {
      const backend = new VaneTestingBackend(values);
      return Test.createTestingModule({
        imports: [AppModule],
        providers: [{ provide: VaneTestingBackend, useValue: backend }],
      })
        .overrideProvider(VaneClient)
        .useFactory({ factory: () => backend.createClient() })
        .compile();
    },
  ],
  [
    'VaneTestingModule.forRoot() in a module built from parts',
    (): Promise<TestingModule> =>
      Test.createTestingModule({
        imports: [VaneTestingModule.forRoot({ ...values, abContext })],
        controllers: [CheckoutController],
      }).compile(),
  ],
])('%s (fixed values, no network)', (_name, build) => {
  let app: INestApplication;
  let backend: VaneTestingBackend;

  beforeEach(async () => {
    app = (await build()).createNestApplication({ logger: false });
    await app.init();
    backend = app.get(VaneTestingBackend);
  });
  afterEach(async () => {
    await app.close();
  });

  it('serves the fixed values', async () => {
    await request(app.getHttpServer()).get('/checkout').expect(200, { key: 'sk_test_fixed', currency: 'CHF' });
  });

  it('changes values while the test runs: guard, secrets and observables see them at once', async () => {
    const flags = firstValueFrom(
      app.get(VaneObservables).flag$('new-checkout').pipe(take(2), toArray(), timeout(1000)),
    );
    await backend.setFlag('new-checkout', false);
    await request(app.getHttpServer()).get('/checkout').expect(404);
    expect((await flags).map((s) => s.active)).toEqual([true, false]);
    await backend.setFlag('new-checkout', true);
    await backend.setSecret('stripe.api_key', 'sk_test_rotated');
    await backend.setConfig('currency', 'USD');
    await request(app.getHttpServer()).get('/checkout').expect(200, { key: 'sk_test_rotated', currency: 'USD' });
  });

  it('answers A/B evaluations from rules, one call per request', async () => {
    await request(app.getHttpServer()).get('/pricing').set('x-user', 'beta-1').expect(200, { dark: false });
    await request(app.getHttpServer()).get('/pricing').set('x-user', 'u-2').expect(404);
    expect(backend.abCalls).toEqual([
      { keys: ['new-pricing', 'dark-mode'], userId: 'beta-1', attributes: {} },
      { keys: ['new-pricing', 'dark-mode'], userId: 'u-2', attributes: {} },
    ]);
  });
});

describe('the same app against the local server', () => {
  it('runs unchanged with VaneModule pointed at startVaneServer()', async () => {
    const server = await startVaneServer({ seed: nestSeed(), port: 0 });
    server.admin.setConfig('shop', 'currency', 'SEK');
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] })
      .overrideProvider(VANE_MODULE_OPTIONS)
      .useValue({ baseUrl: server.baseUrl('shop'), apiKey: KEYS.shopSecret })
      .compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    try {
      await request(app.getHttpServer()).get('/checkout').expect(200, { key: 'rk_test_v1', currency: 'SEK' });
    } finally {
      await app.close();
      await server.close();
    }
  });
});

describe('a context factory that returns a non-string attribute', () => {
  it('turns the A/B flags off and logs the attribute and its type, sending nothing', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const moduleRef = await Test.createTestingModule({
      imports: [
        VaneTestingModule.forRoot({
          ...values,
          abContext: () => ({ userId: 'u-1', attributes: { age: 42 as unknown as string } }),
        }),
      ],
      controllers: [CheckoutController],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    try {
      await request(app.getHttpServer()).get('/pricing').expect(404);
      expect(app.get(VaneTestingBackend).abCalls).toEqual([]);
      expect(warn).toHaveBeenCalledWith(
        expect.stringMatching(/VANE_INVALID_ARGUMENT.*attribute "age" must be a string, got number/),
      );
    } finally {
      await app.close();
      warn.mockRestore();
    }
  });
});

describe('VaneTestingModule.forRoot() and isGlobal', () => {
  @Module({ controllers: [CheckoutController] })
  class CheckoutModule {}

  it('is not global by default, like VaneModule: a feature module does not see the client', async () => {
    const compiled = Test.createTestingModule({
      imports: [VaneTestingModule.forRoot(values), CheckoutModule],
    }).compile();
    await expect(compiled).rejects.toThrow(/VaneClient/);
  });

  it('with isGlobal: true, a feature module gets the client, the guard and the secrets', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [VaneTestingModule.forRoot({ ...values, isGlobal: true }), CheckoutModule],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    try {
      await request(app.getHttpServer()).get('/checkout').expect(200, { key: 'sk_test_fixed', currency: 'CHF' });
    } finally {
      await app.close();
    }
  });
});

describe('VaneTestingBackend.override() on an unchanged AppModule whose options come from ConfigService', () => {
  /** The README's AppModule: forRootAsync, the options read with getOrThrow from an environment a test does not have. */
  @Module({
    imports: [
      ConfigModule.forRoot({ ignoreEnvFile: true }),
      VaneModule.forRootAsync({
        imports: [ConfigModule],
        inject: [ConfigService],
        useFactory: (config: ConfigService) => ({
          baseUrl: config.getOrThrow<string>('VANE_BASE_URL'),
          apiKey: config.getOrThrow<string>('VANE_API_KEY'),
          abContext: (ctx) => abContext(ctx),
        }),
      }),
    ],
    controllers: [CheckoutController],
  })
  class EnvAppModule {}

  const saved = { ...process.env };
  beforeEach(() => {
    delete process.env['VANE_BASE_URL'];
    delete process.env['VANE_API_KEY'];
  });
  afterEach(() => {
    process.env = { ...saved };
  });

  it('without it, the app cannot be compiled in a test: its options factory needs the environment', async () => {
    await expect(Test.createTestingModule({ imports: [EnvAppModule] }).compile()).rejects.toThrow(
      /Configuration key "VANE_BASE_URL" does not exist/,
    );
  });

  it('with it, the app runs on the fixed values, the factory never runs, and the settings given again apply', async () => {
    const backend = new VaneTestingBackend(values);
    const moduleRef = await backend
      .override(Test.createTestingModule({ imports: [EnvAppModule] }), { abContext })
      .compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    try {
      const http = app.getHttpServer();
      await request(http).get('/checkout').expect(200, { key: 'sk_test_fixed', currency: 'CHF' });
      await backend.setFlag('new-checkout', false);
      await request(http).get('/checkout').expect(404);
      await request(http).get('/pricing').set('x-user', 'beta-1').expect(200, { dark: false });
      expect(backend.abCalls).toHaveLength(1);
    } finally {
      await app.close();
    }
  });

  it("the shape of nest new's test/app.e2e-spec.ts: compile the AppModule, create the app, call a route", async () => {
    const backend = new VaneTestingBackend({ flags: { 'new-checkout': true }, secrets: { 'stripe.api_key': 'sk' } });
    const moduleFixture: TestingModule = await backend
      .override(Test.createTestingModule({ imports: [EnvAppModule] }))
      .compile();
    const app = moduleFixture.createNestApplication();
    app.useLogger(false);
    await app.init();
    try {
      await request(app.getHttpServer()).get('/checkout').expect(200, { key: 'sk', currency: 'EUR' });
    } finally {
      await app.close();
    }
  });
});
