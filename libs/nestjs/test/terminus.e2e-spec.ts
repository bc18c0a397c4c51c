import { Controller, Get, type INestApplication } from '@nestjs/common';
import { HealthCheck, HealthCheckService, TerminusModule, type HealthCheckResult } from '@nestjs/terminus';
import { VaneClient } from '@vane/client';
import { startVaneServer, type VaneServer } from '@vane/server';
import request from 'supertest';
import { VaneHealthIndicator, VaneModule, VaneObservables } from '../src/index.js';
import { firstValueFrom, filter, timeout } from 'rxjs';
import { createApp } from './support/app.js';
import { KEYS, nestSeed } from './support/seed.js';
import { waitForStatus } from '@vane/server/testing';

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

describe('VaneHealthIndicator (@nestjs/terminus)', () => {
  let server: VaneServer;
  let app: INestApplication;

  beforeAll(async () => {
    server = await startVaneServer({ seed: nestSeed(), port: 0 });
    app = await createApp({
      imports: [TerminusModule, VaneModule.forRoot({ baseUrl: server.baseUrl('shop'), apiKey: KEYS.shopSecret })],
      controllers: [HealthController],
    });
  });
  afterAll(async () => {
    await app.close();
    await server.close();
  });

  it('is up while the stream is connected, with the snapshot age and billing state', async () => {
    await firstValueFrom(app.get(VaneObservables).connected$().pipe(filter(Boolean), timeout(5000)));
    const res = await request(app.getHttpServer()).get('/health').expect(200);
    expect(res.body).toMatchObject({
      status: 'ok',
      info: {
        vane: {
          status: 'up',
          mode: 'stream',
          connected: true,
          billingOverdue: false,
          revision: server.revision('shop'),
        },
      },
    });
    expect((res.body as { info: { vane: { snapshotAgeMs: number } } }).info.vane.snapshotAgeMs).toEqual(
      expect.any(Number),
    );
  });

  it('is down (503) once billing is overdue', async () => {
    server.admin.setTenant({ overdue_days: 30 });
    // The server ends the stream; the reconnect meets the 402 and the client halts.
    await firstValueFrom(app.get(VaneObservables).billingOverdue$().pipe(filter(Boolean), timeout(5000)));
    const res = await request(app.getHttpServer()).get('/health').expect(503);
    expect(res.body).toMatchObject({
      status: 'error',
      error: { vane: { status: 'down', mode: 'halted', billingOverdue: true } },
    });
    server.admin.setTenant({ overdue_days: 0 });
  });

  it('reports polling when the stream is off', async () => {
    const polling = await createApp({
      imports: [VaneModule.forRoot({ baseUrl: server.baseUrl('shop'), apiKey: KEYS.shopSecret, stream: false })],
    });
    try {
      const result = await polling.get(VaneHealthIndicator).isHealthy('vane');
      expect(result.vane).toMatchObject({ status: 'up', mode: 'polling', connected: false });
      expect(polling.get(VaneClient).connected).toBe(false);
    } finally {
      await polling.close();
    }
  });

  it('is down (503) while the service quarantines the client, saying until when', async () => {
    const client = app.get(VaneClient);
    // A successful sync lifts the billing halt of the test before; the stream comes back.
    await client.sync();
    await firstValueFrom(app.get(VaneObservables).connected$().pipe(filter(Boolean), timeout(2000)));
    server.admin.setTenant({ quarantined_until: new Date(Date.now() + 3_600_000).toISOString() });
    try {
      // The server ends the stream; the reconnect meets the 429 and the client waits, at most maxRetryAfterMs.
      await waitForStatus(client, (status) => status.mode === 'quarantined', { what: 'the quarantine reported' });
      const res = await request(app.getHttpServer()).get('/health').expect(503);
      expect(res.body).toMatchObject({
        status: 'error',
        error: { vane: { status: 'down', mode: 'quarantined', connected: false } },
      });
      expect((res.body as { error: { vane: { reason: string } } }).error.vane.reason).toContain(
        client.status.retryAt!.toISOString(),
      );
    } finally {
      server.admin.setTenant({ quarantined_until: null });
    }
  });
});
