import { Controller, Get, Logger, type INestApplication } from '@nestjs/common';
import { VaneClient } from '@vane/client';
import { startVaneServer, type VaneServer } from '@vane/server';
import { readFileSync } from 'node:fs';
import request from 'supertest';
import { Secret, VaneModule } from '../src/index.js';
import { createApp } from './support/app.js';
import { KEYS, nestSeed } from './support/seed.js';
import { waitForChange } from '@vane/server/testing';

@Controller()
class PayController {
  @Get('key')
  key(@Secret('stripe.api_key') key: string): { key: string } {
    return { key };
  }
  @Get('pem')
  pem(@Secret('tls.client_pem', { file: true }) path: string): { content: string } {
    return { content: readFileSync(path, 'utf8') };
  }
  @Get('missing')
  missing(@Secret('no.such.secret') value: string): { value: string } {
    return { value };
  }
  @Get('optional')
  optional(@Secret('no.such.secret', { optional: true }) value: string | undefined): { absent: boolean } {
    return { absent: value === undefined };
  }
}

describe('@Secret()', () => {
  let server: VaneServer;
  let app: INestApplication;

  beforeAll(async () => {
    server = await startVaneServer({ seed: nestSeed(), port: 0 });
    app = await createApp({
      imports: [VaneModule.forRoot({ baseUrl: server.baseUrl('shop'), apiKey: KEYS.shopSecret, startupCheck: 'off' })],
      controllers: [PayController],
    });
  });
  afterAll(async () => {
    await app.close();
    await server.close();
  });

  it('injects a text secret', async () => {
    await request(app.getHttpServer()).get('/key').expect(200, { key: 'rk_test_v1' });
  });

  it('a secret rotated in the service reaches @Secret() on the next request', async () => {
    const rotated = waitForChange(app.get(VaneClient), (e) => e.kind === 'secret' && e.key === 'stripe.api_key');
    server.admin.setSecret('shop', 'stripe.api_key', 'rk_test_v2');
    await rotated;
    await request(app.getHttpServer()).get('/key').expect(200, { key: 'rk_test_v2' });
  });

  it('injects the path of a file secret, whose content follows rotations', async () => {
    await request(app.getHttpServer()).get('/pem').expect(200, { content: 'pem-v1' });
    const rotated = waitForChange(app.get(VaneClient), (e) => e.kind === 'secret' && e.key === 'tls.client_pem');
    server.admin.setSecret('shop', 'tls.client_pem', 'pem-v2', 'file');
    await rotated;
    await request(app.getHttpServer()).get('/pem').expect(200, { content: 'pem-v2' });
  });

  it('an absent secret is a generic 500 for the caller; the key and the fix go to the log, never a value', async () => {
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      const res = await request(app.getHttpServer()).get('/missing').expect(500);
      expect(res.body).toEqual({ statusCode: 500, message: 'Internal server error' });
      expect(error).toHaveBeenCalledTimes(1);
      const line = String(error.mock.calls[0]![0]);
      expect(line).toMatch(/text secret "no\.such\.secret" is not in the Vane snapshot/);
      expect(line).toContain("@Secret('no.such.secret', { optional: true })");
      expect(line).not.toContain('rk_test');
    } finally {
      error.mockRestore();
    }
  });

  it('an absent optional secret is undefined', async () => {
    await request(app.getHttpServer()).get('/optional').expect(200, { absent: true });
  });

  it('a deleted secret fails the next request', async () => {
    const deleted = waitForChange(
      app.get(VaneClient),
      (e) => e.kind === 'secret' && e.key === 'stripe.api_key' && e.newValue === undefined,
    );
    server.admin.deleteSecret('shop', 'stripe.api_key');
    await deleted;
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      await request(app.getHttpServer()).get('/key').expect(500, { statusCode: 500, message: 'Internal server error' });
      expect(String(error.mock.calls[0]![0])).toMatch(/"stripe\.api_key" is not in the Vane snapshot/);
    } finally {
      error.mockRestore();
    }
  });
});

describe('@Secret() where secrets cannot be read', () => {
  let server: VaneServer;

  beforeAll(async () => {
    server = await startVaneServer({ seed: nestSeed(), port: 0 });
  });
  afterAll(async () => {
    await server.close();
  });

  it.each([
    ['a public key', () => ({ baseUrl: server.baseUrl('shop'), apiKey: KEYS.shopPublic }), 'public-key', /public key/],
    [
      'a frontend service',
      () => ({ baseUrl: server.baseUrl('web'), apiKey: KEYS.webSecret }),
      'frontend-service',
      /frontend/,
    ],
  ])('with %s: a generic 500, and a log line that says why', async (_name, options, _reason, message) => {
    const app = await createApp({
      imports: [VaneModule.forRoot({ ...options(), startupCheck: 'off' })],
      controllers: [PayController],
    });
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      await request(app.getHttpServer()).get('/key').expect(500, { statusCode: 500, message: 'Internal server error' });
      expect(error).toHaveBeenCalledWith(expect.stringMatching(message));
    } finally {
      error.mockRestore();
      await app.close();
    }
  });
});
