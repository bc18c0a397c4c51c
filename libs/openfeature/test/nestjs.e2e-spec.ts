import { Controller, Get, type ExecutionContext, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  OpenFeature,
  OpenFeatureClient,
  OpenFeatureModule,
  ProviderEvents,
  RequireFlagsEnabled,
  type Client,
  type EvaluationContext,
} from '@openfeature/nestjs-sdk';
import { VaneClient } from '@vane/client';
import { startVaneServer, type VaneServer } from '@vane/server';
import { FeatureFlag, VaneModule } from '@vane/nestjs';
import type { Request } from 'express';
import request from 'supertest';
import { VaneProvider } from '../src/index.js';
import { SECRET_KEY, testSeed } from './support/seed.js';
import { nextEvent } from './support/wait.js';
import { until } from '@vane/server/testing';
import { FaultProxy } from '@vane/test-harness';

const silent = { warn: () => undefined, error: () => undefined };
const EVALUATE_AB = '/v1/flags/evaluate-ab';

// #region context
/** Who the user is, for OpenFeature: the targetingKey and string attributes from the request. */
export function evaluationContext(context: ExecutionContext): EvaluationContext {
  const req = context.switchToHttp().getRequest<Request>();
  const [userId, country] = [req.header('x-user-id'), req.header('x-country')];
  return { ...(userId && { targetingKey: userId }), ...(country && { country }) };
}
// #endregion context

@Controller()
class ShopController {
  // #region controller
  constructor(
    @OpenFeatureClient() private readonly features: Client,
    private readonly vane: VaneClient,
  ) {}

  /** OpenFeature's own route gate, answered by Vane. */
  @RequireFlagsEnabled({ flags: [{ flagKey: 'new-checkout' }] })
  @Get('checkout')
  checkout(): { checkout: string } {
    return { checkout: 'new' };
  }

  /** Two A/B flags for the requesting user: one evaluate-ab call. */
  @Get('offer')
  async offer(): Promise<{ newPricing: boolean; darkMode: boolean; greeting: string }> {
    const [newPricing, darkMode, greeting] = await Promise.all([
      this.features.getBooleanValue('new-pricing', false),
      this.features.getBooleanValue('dark-mode', false),
      this.features.getStringValue('greeting.text', 'Hello'),
    ]);
    return { newPricing, darkMode, greeting };
  }
  // #endregion controller

  /** The @vane/nestjs guard in the same app, reading the same client. */
  @FeatureFlag('beta')
  @Get('beta')
  beta(): { beta: boolean; poolMax: number } {
    return { beta: true, poolMax: this.vane.config('db.pool.max', 0) };
  }
}

let server: VaneServer;
let proxy: FaultProxy;

beforeEach(async () => {
  server = await startVaneServer({ seed: testSeed(), port: 0 });
  proxy = await FaultProxy.start(server.port);
});

afterEach(async () => {
  await OpenFeature.close();
  await proxy.close();
  await server.close();
});

describe('one client shared by @vane/nestjs and OpenFeature', () => {
  let app: INestApplication;

  beforeEach(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        VaneModule.forRoot({ baseUrl: proxy.baseUrl('shop'), apiKey: SECRET_KEY, logger: silent }),
        OpenFeatureModule.forRoot({ contextFactory: evaluationContext }),
      ],
      controllers: [ShopController],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    // #region adopt
    // After app.init(): the provider adopts the client VaneModule created (one connection for both).
    await OpenFeature.setProviderAndWait(
      new VaneProvider(app.get(VaneClient), { abFlags: (key) => ['new-pricing', 'dark-mode'].includes(key) }),
    );
    // #endregion adopt
  });

  afterEach(() => app.close());

  it('@RequireFlagsEnabled gates a route on a Vane flag, live', async () => {
    await request(app.getHttpServer()).get('/checkout').expect(200, { checkout: 'new' });
    const changed = nextEvent(OpenFeature.getClient(), ProviderEvents.ConfigurationChanged);
    server.admin.setFlag('shop', 'new-checkout', { is_enabled: false });
    await changed;
    await request(app.getHttpServer()).get('/checkout').expect(404);
  });

  it('the injected client evaluates A/B flags for the requesting user in one call', async () => {
    const before = proxy.count(EVALUATE_AB);
    await request(app.getHttpServer())
      .get('/offer')
      .set('x-user-id', 'user-1')
      .set('x-country', 'DE')
      .expect(200, { newPricing: true, darkMode: false, greeting: 'Hello' });
    expect(proxy.count(EVALUATE_AB)).toBe(before + 1);
    // Without a user (anonymous) the A/B flags are off, as in every Vane adapter: no call.
    await request(app.getHttpServer())
      .get('/offer')
      .expect(200, { newPricing: false, darkMode: false, greeting: 'Hello' });
    expect(proxy.count(EVALUATE_AB)).toBe(before + 1);
  });

  it('the @vane/nestjs guard works next to it; closing the app closes the client once, OpenFeature leaving it to Vane', async () => {
    await request(app.getHttpServer()).get('/beta').expect(404);
    server.admin.setFlag('shop', 'beta', { is_enabled: true });
    const vane = app.get(VaneClient);
    await until(() => vane.flag('beta'), 'the flag change to reach the client');
    await request(app.getHttpServer()).get('/beta').expect(200, { beta: true, poolMax: 10 });
    await OpenFeature.close();
    expect(vane.closed).toBe(false);
    await request(app.getHttpServer()).get('/beta').expect(200);
  });
});

it('a provider with its own client in OpenFeatureModule.forRoot: set up before the app, closed with it', async () => {
  // #region own-client
  const provider = new VaneProvider({ baseUrl: proxy.baseUrl('shop'), apiKey: SECRET_KEY, logger: silent });
  await OpenFeature.setProviderAndWait(provider); // the blocking initial sync, before the app serves requests
  // #endregion own-client
  const moduleRef = await Test.createTestingModule({
    imports: [OpenFeatureModule.forRoot({ defaultProvider: provider, contextFactory: evaluationContext })],
    controllers: [CheckoutOnly],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  await request(app.getHttpServer()).get('/checkout').expect(200);
  await until(() => server.stats().streams === 1, 'the provider client stream');
  await app.close(); // OpenFeature's shutdown hook closes the provider, which closes its client
  await until(() => server.stats().streams === 0, 'the provider client to close');
});

@Controller()
class CheckoutOnly {
  @RequireFlagsEnabled({ flags: [{ flagKey: 'new-checkout' }] })
  @Get('checkout')
  checkout(): { checkout: string } {
    return { checkout: 'new' };
  }
}
