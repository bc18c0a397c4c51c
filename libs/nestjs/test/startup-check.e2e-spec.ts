import { Controller, Get, Injectable, Logger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { startVaneServer, type VaneServer } from '@vane/server';
import {
  defaultVaneContextFactory,
  FeatureFlag,
  Flag,
  Secret,
  VaneModule,
  VaneStartupCheckError,
  type VaneModuleOptions,
} from '../src/index.js';
import { KEYS, nestSeed } from './support/seed.js';

@FeatureFlag('new-chekout')
@Controller('typos')
class TypoController {
  @Get('a')
  a(@Secret('stripe.api_kee') key: string, @Secret('stripe.api_key') good: string): string {
    return key + good;
  }
  @FeatureFlag('new-checkout')
  @Get('b')
  b(@Secret('tls.client_pem') pem: string, @Flag('dark-mod', { ab: true }) dark: boolean): string {
    return pem + String(dark);
  }
}

@Controller('clean')
class CleanController {
  @FeatureFlag('new-checkout')
  @Get()
  get(@Secret('stripe.api_key') key: string, @Secret('tls.client_pem', { file: true }) pem: string): string {
    return key + pem;
  }
}

@Controller('pricing')
class AbController {
  @FeatureFlag('new-checkout', { ab: true })
  @Get()
  get(@Flag('dark-mode', { ab: true }) dark: boolean, @Flag('new-checkout') plain: boolean): string {
    return String(dark) + String(plain);
  }
}

@Injectable()
class Resolver {
  @FeatureFlag('beta-resolver-typo')
  resolve(): string {
    return 'x';
  }
}

describe('startup check', () => {
  let server: VaneServer;
  let warn: jest.SpyInstance;
  let error: jest.SpyInstance;
  let log: jest.SpyInstance;

  beforeAll(async () => {
    server = await startVaneServer({ seed: nestSeed(), port: 0 });
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  async function boot(
    options: Partial<VaneModuleOptions>,
    controllers: Function[],
    providers: Function[] = [],
  ): Promise<() => Promise<void>> {
    const moduleRef = await Test.createTestingModule({
      imports: [VaneModule.forRoot({ baseUrl: server.baseUrl('shop'), apiKey: KEYS.shopSecret, ...options })],
      controllers: controllers as never[],
      providers: providers as never[],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    try {
      await app.init();
    } catch (err) {
      await app.close();
      throw err;
    }
    return () => app.close();
  }

  const messages = (spy: jest.SpyInstance): string[] => spy.mock.calls.map((c) => String(c[0]));

  it('logs every unknown flag and secret key by name, with where it is used, at startup', async () => {
    const close = await boot({}, [TypoController], [Resolver]);
    await close();
    const lines = messages(warn);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/unknown flag "new-chekout" in TypoController:/),
        expect.stringMatching(/unknown secret "stripe\.api_kee" in TypoController\.a/),
        expect.stringMatching(
          /secret "tls\.client_pem" in TypoController\.b is a file secret, but @Secret\(\) asks for a text secret/,
        ),
        expect.stringMatching(/unknown flag "dark-mod" in TypoController\.b/),
        expect.stringMatching(/unknown flag "beta-resolver-typo" in Resolver\.resolve/),
        expect.stringMatching(/@Flag\('dark-mod', \{ ab: true \}\) in TypoController\.b needs the requesting user/),
      ]),
    );
    expect(lines).toHaveLength(6);
    expect(lines.join('\n')).not.toMatch(/rk_test|pem-v1/);
  });

  it('says nothing when every key is known', async () => {
    const close = await boot({}, [CleanController]);
    await close();
    expect(messages(warn)).toEqual([]);
    expect(messages(error)).toEqual([]);
  });

  it("with startupCheck: 'throw' stops the start with a VaneStartupCheckError listing the findings", async () => {
    const failure = await boot({ startupCheck: 'throw' }, [TypoController]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(VaneStartupCheckError);
    expect(failure).toMatchObject({ code: 'VANE_NEST_STARTUP_CHECK_FAILED' });
    expect((failure as VaneStartupCheckError).findings.map((f) => f.key).sort()).toEqual([
      'dark-mod',
      'dark-mod',
      'new-chekout',
      'stripe.api_kee',
      'tls.client_pem',
    ]);
  });

  it('reports an A/B flag in a module with no abContext, like an unknown key: the flag would be off for everyone', async () => {
    const close = await boot({}, [AbController]);
    await close();
    expect(messages(warn)).toEqual([
      expect.stringMatching(
        /^@FeatureFlag\('new-checkout', \{ ab: true \}\) in AbController\.get needs the requesting user, and the module has no abContext option: .*request\.user.*\(the route answers 404\); set abContext in the module's options/,
      ),
      expect.stringMatching(/^@Flag\('dark-mode', \{ ab: true \}\) in AbController\.get needs the requesting user/),
    ]);
    const failure = await boot({ startupCheck: 'throw' }, [AbController]).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(VaneStartupCheckError);
    expect((failure as VaneStartupCheckError).findings).toEqual([
      expect.objectContaining({ kind: 'ab-context-missing', key: 'new-checkout', where: 'AbController.get' }),
      expect.objectContaining({ kind: 'ab-context-missing', key: 'dark-mode', where: 'AbController.get' }),
    ]);
  });

  it.each([
    ['an abContext of its own', { abContext: () => ({ userId: 'u-1' }) }],
    ['the default, named on purpose (an auth guard sets request.user)', { abContext: defaultVaneContextFactory }],
  ])('says nothing of A/B flags with %s', async (_what, options) => {
    const close = await boot({ ...options, startupCheck: 'throw' }, [AbController]);
    await close();
    expect(messages(warn)).toEqual([]);
  });

  it("with startupCheck: 'off' checks nothing", async () => {
    const close = await boot({ startupCheck: 'off' }, [TypoController]);
    await close();
    expect(messages(warn)).toEqual([]);
  });

  it('reports @Secret() under a public key at startup, not on the first request', async () => {
    const close = await boot({ apiKey: KEYS.shopPublic }, [CleanController]);
    await close();
    expect(messages(error)).toEqual([
      expect.stringMatching(
        /@Secret\('stripe\.api_key'\) in CleanController\.get cannot work: the client uses a public key/,
      ),
      expect.stringMatching(
        /@Secret\('tls\.client_pem'\) in CleanController\.get cannot work: the client uses a public key/,
      ),
    ]);
  });

  it('reports @Secret() on a frontend service at startup', async () => {
    const close = await boot({ baseUrl: server.baseUrl('web'), apiKey: KEYS.webSecret }, [CleanController]);
    await close();
    expect(messages(error)).toEqual(
      expect.arrayContaining([expect.stringMatching(/service "web" is of kind "frontend"/)]),
    );
  });

  it('notes a public-key client at startup even without @Secret()', async () => {
    const close = await boot({ apiKey: KEYS.shopPublic }, []);
    await close();
    expect(messages(log)).toEqual(expect.arrayContaining([expect.stringMatching(/public key/)]));
  });
});
