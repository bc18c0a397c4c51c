import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Controller, Get, type INestApplication } from '@nestjs/common';
import { HealthCheck, HealthCheckService, TerminusModule, type HealthCheckResult } from '@nestjs/terminus';
import { FileBackupStore, VaneClient, type StaleState } from '@vane/client';
import { startVaneServer, type VaneServer } from '@vane/server';
import { filter, firstValueFrom, timeout } from 'rxjs';
import request from 'supertest';
import { VaneHealthIndicator, VaneModule, VaneObservables, type VaneModuleOptions } from '../src/index.js';
import { createApp } from './support/app.js';
import { KEYS, nestSeed } from './support/seed.js';
import { FaultProxy } from '@vane/test-harness';

@Controller()
class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly vane: VaneHealthIndicator,
  ) {}
  @Get('health')
  @HealthCheck()
  check(): Promise<HealthCheckResult> {
    return this.health.check([() => this.vane.isHealthy('vane')]);
  }
}

describe('VaneModule with lastKnownGood: an app that starts during an outage', () => {
  let dir: string;
  let server: VaneServer;
  let proxy: FaultProxy;
  const silent = { warn() {}, error() {} };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vane-nest-lkg-'));
    server = await startVaneServer({ seed: nestSeed(), port: 0, statePath: join(dir, 'state.json') });
    proxy = await FaultProxy.start(server.port);
  });

  afterAll(async () => {
    await proxy.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('starts from the backup (health up, stale with age and cause; stale$), then turns fresh when the service is back', async () => {
    const baseUrl = proxy.baseUrl('shop');
    const backupDir = join(dir, 'backups');
    // #region last-known-good
    const vaneOptions: VaneModuleOptions = {
      baseUrl,
      apiKey: KEYS.shopSecret,
      // Saved after every change; served, stale, when the service cannot be reached at startup.
      lastKnownGood: { store: new FileBackupStore({ directory: backupDir }), maxAgeMs: 7 * 24 * 3600_000 },
    };
    // #endregion last-known-good
    const options: VaneModuleOptions = { ...vaneOptions, logger: silent, backoffMinMs: 20, backoffMaxMs: 40 };
    // A first start with the service up saves the backup (closing the app waits for the save).
    await (await createApp({ imports: [VaneModule.forRoot(options)] })).close();
    server.admin.setConfig('shop', 'db.host', 'db-2.internal');
    const port = server.port;
    await server.close();

    let app: INestApplication | undefined;
    try {
      app = await createApp({
        imports: [TerminusModule, VaneModule.forRoot(options)],
        controllers: [HealthController],
      });
      const client = app.get(VaneClient);
      expect(client.config('db.host')).toBe('db.internal');
      const res = await request(app.getHttpServer()).get('/health').expect(200);
      expect(res.body).toMatchObject({
        status: 'ok',
        info: {
          vane: {
            status: 'up',
            stale: {
              reason: 'transport',
              ageMs: expect.any(Number),
              cause: expect.stringMatching(/^VANE_TRANSPORT: /),
            },
          },
        },
      });
      const stale$ = app.get(VaneObservables).stale$();
      expect(await firstValueFrom(stale$)).toMatchObject<Partial<StaleState>>({ reason: 'transport' });

      server = await startVaneServer({ seed: nestSeed(), port, statePath: join(dir, 'state.json') });
      await firstValueFrom(
        stale$.pipe(
          filter((s) => s === null),
          timeout(5000),
        ),
      );
      expect(client.config('db.host')).toBe('db-2.internal');
      const fresh = await request(app.getHttpServer()).get('/health').expect(200);
      expect((fresh.body as { info: { vane: object } }).info.vane).not.toHaveProperty('stale');
    } finally {
      await app?.close();
    }
  });
});
