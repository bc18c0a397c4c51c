// `useGlobalInterceptor: false`: the module registers no app-wide pin interceptor (as OpenFeature's module
// does with the same option), and an app pins where it wants with `@UseInterceptors(VanePinInterceptor)`.
// The exception filter's switch (`exceptionFilter: false`) is proven in exception-filter.e2e-spec.ts.
import { Controller, Get, UseInterceptors, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { startVaneServer, type VaneServer } from '@vane/server';
import request from 'supertest';
import { FeatureFlag, Secret, VaneModule, VanePinInterceptor, type VaneModuleOptions } from '../src/index.js';
import { midRequestChange, MidRequestChange, ShopReads, type Answer } from './support/mid-request.js';
import { KEYS, nestSeed } from './support/seed.js';

@Controller()
class Unpinned {
  constructor(private readonly reads: ShopReads) {}

  @FeatureFlag('new-checkout')
  @Get('unpinned')
  read(
    @Secret('stripe.api_key') key: string,
    @Secret('tls.client_pem', { file: true }) pemPath: string,
  ): Promise<Answer> {
    return this.reads.acrossAChange({ flag: true, key, pemPath });
  }
}

@UseInterceptors(VanePinInterceptor)
@Controller()
class Pinned {
  constructor(private readonly reads: ShopReads) {}

  @FeatureFlag('new-checkout')
  @Get('pinned')
  read(
    @Secret('stripe.api_key') key: string,
    @Secret('tls.client_pem', { file: true }) pemPath: string,
  ): Promise<Answer> {
    return this.reads.acrossAChange({ flag: true, key, pemPath });
  }
}

describe('useGlobalInterceptor', () => {
  let server: VaneServer;
  let app: INestApplication | undefined;

  beforeEach(async () => {
    server = await startVaneServer({ seed: nestSeed(), port: 0 });
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await server.close();
  });

  const start = async (options: Partial<VaneModuleOptions>): Promise<INestApplication> => {
    const module = await Test.createTestingModule({
      imports: [
        VaneModule.forRoot({
          baseUrl: server.baseUrl('shop'),
          apiKey: KEYS.shopSecret,
          startupCheck: 'off',
          ...options,
        }),
      ],
      controllers: [Unpinned, Pinned],
      providers: [ShopReads, midRequestChange(server)],
    }).compile();
    app = module.createNestApplication({ logger: false });
    await app.init();
    return app;
  };

  const get = async (target: INestApplication, path: string): Promise<Answer> => {
    const res = await request(target.getHttpServer()).get(path).expect(200);
    return res.body as Answer;
  };

  it('by default pins every handler: a service reads the revision the call started on', async () => {
    const answer = await get(await start({}), '/unpinned');
    expect(answer.after).toEqual(answer.before);
  }, 30_000);

  it('false: a handler without the interceptor reads live; one that names it still reads one revision', async () => {
    const target = await start({ useGlobalInterceptor: false });
    const unpinned = await get(target, '/unpinned');
    expect(unpinned.before).toMatchObject({ pool: 10, key: 'rk_test_v1' });
    expect(unpinned.after).toMatchObject({ flag: false, pool: 101, key: 'rk_round_1' });

    await target.get(MidRequestChange).restore();
    const pinned = await get(target, '/pinned');
    expect(pinned.after).toEqual(pinned.before);
  }, 30_000);

  it('refuses a value that is not a boolean, naming the option', async () => {
    await expect(start({ useGlobalInterceptor: 'no' as unknown as boolean })).rejects.toThrow(
      'useGlobalInterceptor must be true or false, not string',
    );
  });
});
