import { Controller, Get, type INestApplication } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { Test } from '@nestjs/testing';
import { VaneClient } from '@vane/client';
import { startVaneServer, type VaneServer } from '@vane/server';
import { firstValueFrom, filter, timeout } from 'rxjs';
import request from 'supertest';
import { ConfigServiceMissingError, VaneModule } from '../src/index.js';
import { createApp } from './support/app.js';
import { KEYS, nestSeed } from './support/seed.js';
import { waitForChange } from '@vane/server/testing';

@Controller()
class DbController {
  constructor(private readonly config: ConfigService) {}
  @Get('db')
  db(): object {
    return {
      host: this.config.get<string>('db.host'),
      max: this.config.get<number>('db.pool.max'),
      banner: this.config.get('banner.text', 'default'),
    };
  }
}

describe('@nestjs/config interop (mirrorToConfigService)', () => {
  let server: VaneServer;
  let app: INestApplication;

  beforeAll(async () => {
    server = await startVaneServer({ seed: nestSeed(), port: 0 });
    app = await createApp({
      imports: [
        ConfigModule.forRoot({ ignoreEnvFile: true }),
        VaneModule.forRoot({ baseUrl: server.baseUrl('shop'), apiKey: KEYS.shopSecret, mirrorToConfigService: true }),
      ],
      controllers: [DbController],
    });
  });
  afterAll(async () => {
    await app.close();
    await server.close();
    for (const key of ['db.host', 'db.pool.max', 'cors.origins', 'banner.text']) delete process.env[key];
  });

  it('configService.get() serves Vane configs, with their JSON types', async () => {
    await request(app.getHttpServer()).get('/db').expect(200, { host: 'db.internal', max: 10, banner: null });
  });

  it('serves the live value after a change, and ConfigService.changes$ tells', async () => {
    const changed = firstValueFrom(
      app.get(ConfigService).changes$.pipe(
        filter((e) => e.path === 'db.host'),
        timeout(5000),
      ),
    );
    server.admin.setConfig('shop', 'db.host', 'db-replica.internal');
    await expect(changed).resolves.toMatchObject({ oldValue: 'db.internal', newValue: 'db-replica.internal' });
    await request(app.getHttpServer()).get('/db').expect(200, { host: 'db-replica.internal', max: 10, banner: null });
  });

  it('a deleted config is unset (get() returns the default)', async () => {
    const deleted = waitForChange(app.get(VaneClient), (e) => e.key === 'banner.text');
    server.admin.deleteConfig('shop', 'banner.text');
    await deleted;
    await request(app.getHttpServer())
      .get('/db')
      .expect(200, { host: 'db-replica.internal', max: 10, banner: 'default' });
  });

  it('never touches process.env: a config named like a variable neither replaces nor deletes it', async () => {
    process.env['VANE_MIRROR_PROBE'] = 'from the environment';
    try {
      expect(process.env['db.host']).toBeUndefined();
      const set = waitForChange(app.get(VaneClient), (e) => e.key === 'VANE_MIRROR_PROBE');
      server.admin.setConfig('shop', 'VANE_MIRROR_PROBE', 'from vane');
      await set;
      expect(app.get(ConfigService).get('VANE_MIRROR_PROBE')).toBe('from vane');
      expect(process.env['VANE_MIRROR_PROBE']).toBe('from the environment');
      const deleted = waitForChange(app.get(VaneClient), (e) => e.key === 'VANE_MIRROR_PROBE');
      server.admin.deleteConfig('shop', 'VANE_MIRROR_PROBE');
      await deleted;
      expect(process.env['VANE_MIRROR_PROBE']).toBe('from the environment');
      expect(app.get(ConfigService).get('VANE_MIRROR_PROBE')).toBe('from the environment');
    } finally {
      delete process.env['VANE_MIRROR_PROBE'];
    }
  });

  it('without ConfigModule the start fails with a clear error', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        VaneModule.forRoot({ baseUrl: server.baseUrl('shop'), apiKey: KEYS.shopSecret, mirrorToConfigService: true }),
      ],
    }).compile();
    const bare = moduleRef.createNestApplication({ logger: false });
    await expect(bare.init()).rejects.toBeInstanceOf(ConfigServiceMissingError);
    await bare.close();
  });
});
