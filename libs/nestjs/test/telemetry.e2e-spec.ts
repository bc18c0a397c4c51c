import { Controller, Get, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { VaneClient } from '@vane/client';
import { SYNC_MODES } from '@vane/client/adapter';
import { startVaneServer, type VaneServer } from '@vane/server';
import type { NextFunction, Request, Response } from 'express';
import request from 'supertest';
import { OtelSdk } from '../../client/test/helpers/otel-sdk.js';
import { FeatureFlag, VaneHealthIndicator, VaneModule, type VaneModuleOptions } from '../src/index.js';
import { KEYS, nestSeed } from './support/seed.js';

@Controller()
class GatedController {
  @FeatureFlag('new-checkout')
  @Get('checkout')
  checkout(): string {
    return 'checkout';
  }
  @FeatureFlag(['new-checkout', 'beta'])
  @Get('beta')
  beta(): string {
    return 'beta';
  }
}

let sdk: OtelSdk;
let server: VaneServer;
const apps: INestApplication[] = [];

beforeEach(async () => {
  sdk = OtelSdk.install();
  server = await startVaneServer({ seed: nestSeed(), port: 0 });
});
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
  await server.close();
  await sdk.uninstall();
});

/** A Nest app whose requests each run in a span, as an app's HTTP instrumentation opens it. */
async function createTracedApp(options: Partial<VaneModuleOptions> = {}): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [VaneModule.forRoot({ baseUrl: server.baseUrl('shop'), apiKey: KEYS.shopSecret, ...options })],
    controllers: [GatedController],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  app.use((req: Request, res: Response, next: NextFunction) => {
    sdk.tracerProvider.getTracer('http').startActiveSpan(`${req.method} ${req.path}`, (span) => {
      res.on('finish', () => span.end());
      next();
    });
  });
  await app.init();
  apps.push(app);
  return app;
}

/** The mode the `vane.client.sync.mode` metric says is current. */
async function metricMode(): Promise<string | undefined> {
  const points = await sdk.points('vane.client.sync.mode');
  return points.find((p) => p.value === 1)?.attributes['vane.sync.mode'] as string | undefined;
}

describe('FeatureFlagGuard decisions as feature_flag.evaluation events', () => {
  it("one event per flag the guard read, on the request's span, at the revision served", async () => {
    const app = await createTracedApp();
    await request(app.getHttpServer()).get('/checkout').expect(200, 'checkout');
    await request(app.getHttpServer()).get('/beta').expect(404);
    const version = String(app.get(VaneClient).revision);
    const eventsOf = (name: string) =>
      sdk
        .spans()
        .find((s) => s.name === name)!
        .events.map((e) => [e.name, e.attributes]);
    const common = { 'feature_flag.provider.name': 'vane', 'feature_flag.version': version };
    expect(eventsOf('GET /checkout')).toEqual([
      [
        'feature_flag.evaluation',
        {
          ...common,
          'feature_flag.key': 'new-checkout',
          'feature_flag.result.value': true,
          'feature_flag.result.reason': 'static',
        },
      ],
    ]);
    expect(eventsOf('GET /beta').map(([, a]) => a)).toEqual([
      expect.objectContaining({ 'feature_flag.key': 'new-checkout', 'feature_flag.result.reason': 'static' }),
      expect.objectContaining({
        'feature_flag.key': 'beta',
        'feature_flag.result.value': false,
        'feature_flag.result.reason': 'disabled',
      }),
    ]);
  });
});

describe('the health indicator and the sync mode metric agree', () => {
  it('the metric covers the whole vocabulary, one mode at 1', async () => {
    await createTracedApp();
    const points = await sdk.points('vane.client.sync.mode');
    expect(points.map((p) => p.attributes['vane.sync.mode']).sort()).toEqual([...SYNC_MODES].sort());
    expect(points.filter((p) => p.value === 1)).toHaveLength(1);
  });

  it.each([
    ['stream', {}],
    ['polling', { stream: false }],
  ])('%s', async (mode, options) => {
    const app = await createTracedApp(options);
    const client = app.get(VaneClient);
    const deadline = Date.now() + 5000;
    while (client.status.mode !== mode) {
      if (Date.now() > deadline) throw new Error(`still ${client.status.mode} after 5 s`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(app.get(VaneHealthIndicator).details().mode).toBe(mode);
    expect(await metricMode()).toBe(mode);
  });

  it('halted (402)', async () => {
    const app = await createTracedApp({ stream: false });
    server.admin.setTenant({ overdue_days: 30 });
    await app
      .get(VaneClient)
      .sync()
      .catch(() => undefined);
    expect(app.get(VaneHealthIndicator).details()).toMatchObject({ mode: 'halted', reason: expect.any(String) });
    expect(await metricMode()).toBe('halted');
  });
});
