import { Controller, Get, Inject, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { startVaneServer, type VaneServer } from '@vane/server';
import {
  keepSecureContextCurrent,
  provideLiveResource,
  tlsCertificate,
  VaneClient,
  VaneModule,
  VANE_MODULE_OPTIONS,
  type LiveResource,
  type TlsCertificate,
  type VaneModuleOptions,
} from '@vane/nestjs';
import type { Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Pool } from 'pg';
import { makeCertificate, type TestCertificate } from '../../../test/support/certificates.js';
import {
  connectionsBecome,
  createRole,
  pgSeed,
  PG_POOL_MAX,
  PG_ROLE,
  PG_SERVICE_KEY,
  rotatePasswordUnderLoad,
} from '../../../test/support/pg-rotation.js';
import { describeWithPostgres, startPostgres, type TestPostgres } from '../../../test/support/postgres.js';
import { rotateCertificate, tlsSeed, TLS_SERVICE_KEY } from '../../../test/support/tls-rotation.js';

// #region nest-live-pool
export const PG_POOL = Symbol('PG_POOL');

export const pgPoolProvider = provideLiveResource({
  provide: PG_POOL,
  configs: ['db.host', 'db.port', 'db.user', 'db.name'],
  secrets: ['db.password'],
  create: ({ configs, secrets }) => {
    const pool = new Pool({
      host: String(configs['db.host']),
      port: Number(configs['db.port']),
      user: String(configs['db.user']),
      database: String(configs['db.name']),
      password: secrets['db.password'],
      max: PG_POOL_MAX,
    });
    pool.on('error', () => undefined); // an idle connection the server dropped: the pool opens another
    return pool;
  },
  // The new password must work before the new pool serves anyone.
  ready: (pool) => pool.query('SELECT 1'),
  // Called once the requests that borrowed the old pool have finished.
  dispose: (pool) => pool.end(),
});

@Controller('orders')
export class OrdersController {
  constructor(@Inject(PG_POOL) private readonly pool: LiveResource<Pool>) {}

  @Get('whoami')
  async whoami(): Promise<{ user: string }> {
    // Borrowed for the query: a rotation meanwhile ends this pool only after it.
    const { rows } = await this.pool.use((p) => p.query<{ user: string }>('SELECT current_user AS user'));
    return rows[0]!;
  }
}
// #endregion nest-live-pool

/** Every line the client logged. */
function memoryLogger(): { lines: string[]; warn(m: string): void; error(m: string): void; info(m: string): void } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => void lines.push(`info: ${m}`),
    warn: (m) => void lines.push(`warn: ${m}`),
    error: (m) => void lines.push(`error: ${m}`),
  };
}

describeWithPostgres('a live PostgreSQL pool in a Nest app', () => {
  let pg: TestPostgres;
  let server: VaneServer;

  beforeAll(async () => {
    pg = await startPostgres();
    await createRole(pg);
    server = await startVaneServer({ seed: pgSeed(pg), port: 0 });
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await pg?.stop();
  }, 30_000);

  it('is rebuilt on a password rotation under load with no failed request, and disposed of with the app', async () => {
    const logger = memoryLogger();
    const moduleRef = await Test.createTestingModule({
      imports: [
        // Async options: the pool is built once the client exists, after its initial sync.
        VaneModule.forRootAsync({
          isGlobal: true,
          useFactory: async (): Promise<VaneModuleOptions> => ({
            baseUrl: server.baseUrl('orders'),
            apiKey: PG_SERVICE_KEY,
            logger,
            startupCheck: 'off',
          }),
        }),
      ],
      controllers: [OrdersController],
      providers: [pgPoolProvider],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    const pool = app.get<LiveResource<Pool>>(PG_POOL);
    const { port } = (app.getHttpServer() as HttpsServer).address() as AddressInfo;
    try {
      await rotatePasswordUnderLoad(pg, {
        url: `http://127.0.0.1:${port}/orders/whoami`,
        client: app.get(VaneClient),
        pool,
        logs: () => logger.lines.join('\n'),
      });
    } finally {
      const last = pool.current;
      await app.close();
      // Disposed of on shutdown: the pool in service is ended, the server sees no connection of the role.
      expect(last.ended).toBe(true);
    }
    expect(pool.status.state).toBe('closed');
    expect(() => pool.current).toThrow(expect.objectContaining({ code: 'VANE_LIVE_RESOURCE_CLOSED' }));
    await connectionsBecome(pg, 0);
  }, 120_000);

  it('stops the start when the first build fails (factory form, with inject)', async () => {
    const builder = Test.createTestingModule({
      imports: [
        VaneModule.forRoot({
          isGlobal: true,
          baseUrl: server.baseUrl('orders'),
          apiKey: PG_SERVICE_KEY,
          logger: memoryLogger(),
          startupCheck: 'off',
        }),
      ],
      providers: [
        provideLiveResource({
          provide: PG_POOL,
          inject: [VANE_MODULE_OPTIONS],
          useFactory: (options: VaneModuleOptions) => ({
            name: `pool of ${new URL(options.baseUrl).hostname}`,
            configs: ['db.host'],
            secrets: ['db.replica_password'],
            create: () => new Pool({ user: PG_ROLE }),
            dispose: (p: Pool) => p.end(),
          }),
        }),
      ],
    });
    await expect(builder.compile()).rejects.toMatchObject({
      code: 'VANE_LIVE_RESOURCE_BUILD_FAILED',
      stage: 'values',
      resource: 'pool of orders.localhost',
      cause: { code: 'VANE_SECRET_NOT_FOUND' },
    });
  }, 30_000);
});

// #region nest-live-tls
export const TLS = Symbol('TLS');

export const tlsProvider = provideLiveResource({
  provide: TLS,
  ...tlsCertificate({ cert: { file: 'tls.cert' }, key: { file: 'tls.key' } }),
});

/** `main.ts`: an HTTPS server with no certificate yet (`httpsOptions: {}`), given Vane's before it listens. */
export async function listenWithLiveTls(app: INestApplication, port: number): Promise<void> {
  keepSecureContextCurrent(app.getHttpServer(), app.get<LiveResource<TlsCertificate>>(TLS));
  await app.listen(port, '127.0.0.1');
}
// #endregion nest-live-tls

@Controller('health')
class HealthController {
  @Get()
  health(): { ok: true } {
    return { ok: true };
  }
}

describe('a live TLS certificate in a Nest app (httpsOptions)', () => {
  let server: VaneServer;
  let first: TestCertificate;

  beforeAll(async () => {
    first = await makeCertificate();
    server = await startVaneServer({ seed: tlsSeed(first), port: 0 });
  }, 30_000);

  afterAll(async () => {
    await server?.close();
  });

  it('serves the new certificate to new connections and keeps the open ones', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        VaneModule.forRoot({
          baseUrl: server.baseUrl('edge'),
          apiKey: TLS_SERVICE_KEY,
          logger: memoryLogger(),
          startupCheck: 'off',
        }),
      ],
      controllers: [HealthController],
      providers: [tlsProvider],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false, httpsOptions: {} });
    try {
      await app.init();
      // Keep-alive connections outlive the rotation, whatever the machine's load.
      (app.getHttpServer() as HttpsServer).keepAliveTimeout = 60_000;
      await listenWithLiveTls(app, 0);
      const { port } = (app.getHttpServer() as HttpsServer).address() as AddressInfo;
      await rotateCertificate(server, `https://127.0.0.1:${port}/health`, app.get(TLS), first);
    } finally {
      await app.close();
    }
  }, 60_000);
});
