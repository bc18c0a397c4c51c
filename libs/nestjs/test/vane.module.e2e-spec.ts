import {
  Controller,
  Get,
  Injectable,
  Logger,
  Module,
  type BeforeApplicationShutdown,
  type INestApplication,
} from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { Test } from '@nestjs/testing';
import { VaneClient, type VaneError } from '@vane/client';
import {
  BillingOverdueError,
  NotAVaneServiceError,
  VaneNotFoundError,
  TransportError,
  UnauthorizedError,
} from '@vane/client/errors';
import { startVaneServer, type VaneServer } from '@vane/server';
import { existsSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer } from 'node:net';
import request from 'supertest';
import { Secret, VaneModule, type VaneModuleOptions, type VaneOptionsFactory } from '../src/index.js';
import { stuckConnection } from '../../../test/support/stuck-connection.js';
import { createApp } from './support/app.js';
import { KEYS, nestSeed } from './support/seed.js';

@Injectable()
class Greeter {
  constructor(readonly vane: VaneClient) {}
  host(): string {
    return this.vane.config('db.host', 'none');
  }
}

@Controller()
class HostController {
  constructor(private readonly greeter: Greeter) {}
  @Get('host')
  host(): { host: string } {
    return { host: this.greeter.host() };
  }
  @Get('pem')
  pem(@Secret('tls.client_pem', { file: true }) path: string): { path: string } {
    return { path };
  }
}

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('VaneModule', () => {
  let server: VaneServer;
  let app: INestApplication | undefined;
  let errorLog: jest.SpyInstance;

  /** Another app where the base URL points (a wrong port): it answers 404 without Vane-Protocol. */
  let otherApp: Server;

  beforeAll(async () => {
    server = await startVaneServer({ seed: nestSeed(), port: 0 });
    otherApp = createHttpServer((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('Cannot GET'));
    await new Promise<void>((resolve) => otherApp.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await server.close();
    await new Promise<void>((resolve) => otherApp.close(() => resolve()));
  });
  beforeEach(() => {
    errorLog = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    server.admin.setTenant({ overdue_days: 0 });
    jest.restoreAllMocks();
  });

  const options = (): VaneModuleOptions => ({ baseUrl: server.baseUrl('shop'), apiKey: KEYS.shopSecret });

  it('forRoot: the client is injectable by class, with its cache full before the first request', async () => {
    app = await createApp({
      imports: [VaneModule.forRoot(options())],
      controllers: [HostController],
      providers: [Greeter],
    });
    await request(app.getHttpServer()).get('/host').expect(200, { host: 'db.internal' });
    expect(app.get(VaneClient).revision).toBe(server.revision('shop'));
  });

  it('forRootAsync with ConfigService (useFactory + inject) and isGlobal', async () => {
    @Module({ controllers: [HostController], providers: [Greeter] })
    class FeatureModule {}
    const env = { VANE_BASE_URL: server.baseUrl('shop'), VANE_API_KEY: KEYS.shopSecret };
    app = await createApp({
      imports: [
        ConfigModule.forRoot({ ignoreEnvFile: true, load: [() => env] }),
        VaneModule.forRootAsync({
          isGlobal: true,
          imports: [ConfigModule],
          inject: [ConfigService],
          useFactory: (config: ConfigService) => ({
            baseUrl: config.getOrThrow<string>('VANE_BASE_URL'),
            apiKey: config.getOrThrow<string>('VANE_API_KEY'),
          }),
        }),
        FeatureModule,
      ],
    });
    await request(app.getHttpServer()).get('/host').expect(200, { host: 'db.internal' });
  });

  it('forRootAsync with useClass', async () => {
    const opts = options();
    @Injectable()
    class VaneOptions implements VaneOptionsFactory {
      createVaneOptions(): VaneModuleOptions {
        return opts;
      }
    }
    app = await createApp({
      imports: [VaneModule.forRootAsync({ useClass: VaneOptions })],
      controllers: [HostController],
      providers: [Greeter],
    });
    await request(app.getHttpServer()).get('/host').expect(200, { host: 'db.internal' });
  });

  it('without isGlobal the client is not visible to a module that does not import VaneModule', async () => {
    @Module({ controllers: [HostController], providers: [Greeter] })
    class FeatureModule {}
    // Nest closes nothing when a compile fails, and the client's factory may still run after it failed: the
    // options are held back until then, and the client created from them is closed here (file secrets with it).
    let release!: (o: VaneModuleOptions) => void;
    const held = new Promise<VaneModuleOptions>((resolve) => (release = resolve));
    const original = VaneClient.create.bind(VaneClient);
    const created = new Promise<VaneClient>((resolve) =>
      jest.spyOn(VaneClient, 'create').mockImplementationOnce((o) => {
        const client = original(o);
        resolve(client);
        return client;
      }),
    );
    await expect(
      Test.createTestingModule({
        imports: [VaneModule.forRootAsync({ useFactory: () => held }), FeatureModule],
      }).compile(),
    ).rejects.toThrow(/VaneClient/);
    release(options());
    await (await created).close();
  });

  describe.each<[string, () => Partial<VaneModuleOptions>, new (...args: never[]) => VaneError, string, RegExp]>([
    ['wrong key (401)', () => ({ apiKey: KEYS.otherSecret }), UnauthorizedError, 'VANE_UNAUTHORIZED', /wrong key/],
    [
      'wrong slug (404)',
      () => ({ baseUrl: server.baseUrl('nope') }),
      VaneNotFoundError,
      'VANE_NOT_FOUND',
      /wrong slug/,
    ],
    [
      'wrong port (another app answers 404)',
      () => ({ baseUrl: `http://shop.localhost:${(otherApp.address() as { port: number }).port}` }),
      NotAVaneServiceError,
      'VANE_NOT_A_VANE_SERVICE',
      /wrong address: something other than a Vane service/,
    ],
    [
      'billing (402)',
      () => (server.admin.setTenant({ overdue_days: 30 }), {}),
      BillingOverdueError,
      'VANE_BILLING_OVERDUE',
      /billing/,
    ],
  ])('startup fails cleanly on %s', (_name, change, type, code, hint) => {
    it('rejects with the typed error and logs what to fix', async () => {
      const attempt = Test.createTestingModule({
        imports: [VaneModule.forRoot({ ...options(), ...change() })],
        controllers: [HostController],
        providers: [Greeter],
      }).compile();
      const error = await attempt.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(type);
      expect(error).toMatchObject({ code });
      expect(errorLog).toHaveBeenCalledWith(expect.stringMatching(hint));
      expect(String(errorLog.mock.calls[0]?.[0])).not.toContain(KEYS.otherSecret);
    });
  });

  it('startup fails cleanly when the service is unreachable (transport)', async () => {
    const port = await closedPort();
    const attempt = Test.createTestingModule({
      imports: [
        VaneModule.forRoot({ baseUrl: `http://shop.localhost:${port}`, apiKey: KEYS.shopSecret, timeoutMs: 2000 }),
      ],
    }).compile();
    await expect(attempt).rejects.toBeInstanceOf(TransportError);
    await expect(attempt).rejects.toMatchObject({ code: 'VANE_TRANSPORT' });
    expect(errorLog).toHaveBeenCalledWith(expect.stringMatching(/unreachable: check baseUrl/));
  });

  it('a NestFactory-style start with the wrong key never listens (init rejects)', async () => {
    const moduleRef = Test.createTestingModule({
      imports: [VaneModule.forRoot({ ...options(), apiKey: 'svs_not_a_key_of_shop' })],
    });
    await expect(moduleRef.compile()).rejects.toMatchObject({ code: 'VANE_UNAUTHORIZED', status: 401 });
  });

  it('on shutdown the client closes and file secrets are removed', async () => {
    app = await createApp({
      imports: [VaneModule.forRoot(options())],
      controllers: [HostController],
      providers: [Greeter],
    });
    app.enableShutdownHooks();
    const { body } = await request(app.getHttpServer()).get('/pem').expect(200);
    const path = (body as { path: string }).path;
    expect(existsSync(path)).toBe(true);
    const client = app.get(VaneClient);
    await app.close();
    app = undefined;
    expect(client.closed).toBe(true);
    expect(existsSync(path)).toBe(false);
  });

  describe('shutdown while a connection does not drain', () => {
    async function listeningApp(drainTimeoutMs?: number): Promise<{ app: INestApplication; url: string }> {
      const started = await createApp({
        imports: [VaneModule.forRoot({ ...options(), ...(drainTimeoutMs === undefined ? {} : { drainTimeoutMs }) })],
        controllers: [HostController],
        providers: [Greeter],
      });
      await started.listen(0, '127.0.0.1');
      return { app: started, url: await started.getUrl() };
    }

    it('the client closes, and its files go, drainTimeoutMs after shutdown starts, while the server still drains', async () => {
      const started = await listeningApp(50);
      app = started.app;
      const { body } = await request(started.url).get('/pem').expect(200);
      const path = (body as { path: string }).path;
      const client = app.get(VaneClient);
      const closedStatus = new Promise<void>((resolve) =>
        client.onStatusChange((status) => status.mode === 'closed' && resolve()),
      );
      const stuck = await stuckConnection(started.url, '/host');
      let appClosed = false;
      const closingApp = app.close().then(() => (appClosed = true));
      await closedStatus;
      await client.close(); // the close the drain timeout started: resolves once the files are removed
      expect(existsSync(path)).toBe(false);
      expect(appClosed).toBe(false); // the server still waits for the stuck connection
      stuck.socket.destroy();
      await closingApp;
      app = undefined;
    });

    it('the bound holds while a later shutdown hook of the app still runs', async () => {
      let releaseHook!: () => void;
      const hookHeld = new Promise<void>((resolve) => (releaseHook = resolve));
      @Injectable()
      class SlowShutdown implements BeforeApplicationShutdown {
        beforeApplicationShutdown(): Promise<void> {
          return hookHeld;
        }
      }
      app = await createApp({
        imports: [VaneModule.forRoot({ ...options(), drainTimeoutMs: 50 })],
        providers: [SlowShutdown],
      });
      const client = app.get(VaneClient);
      const closedStatus = new Promise<void>((resolve) =>
        client.onStatusChange((status) => status.mode === 'closed' && resolve()),
      );
      const closingApp = app.close();
      await closedStatus; // while SlowShutdown still holds the shutdown
      releaseHook();
      await closingApp;
      app = undefined;
    });

    it('drainTimeoutMs: 0 closes the client as shutdown starts', async () => {
      const started = await listeningApp(0);
      app = started.app;
      const client = app.get(VaneClient);
      const stuck = await stuckConnection(started.url, '/host');
      const closedStatus = new Promise<void>((resolve) =>
        client.onStatusChange((status) => status.mode === 'closed' && resolve()),
      );
      const closingApp = app.close();
      await closedStatus;
      stuck.socket.destroy();
      await closingApp;
      app = undefined;
    });

    it.each([-1, Number.NaN, Infinity, '5' as unknown as number])(
      'drainTimeoutMs %p is refused at startup',
      async (ms) => {
        await expect(
          createApp({ imports: [VaneModule.forRoot({ ...options(), drainTimeoutMs: ms })] }),
        ).rejects.toMatchObject({ code: 'VANE_INVALID_ARGUMENT', message: expect.stringContaining('drainTimeoutMs') });
      },
    );
  });
});
