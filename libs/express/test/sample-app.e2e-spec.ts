import { join, resolve } from 'node:path';
import { sweepStaleSecretDirs } from '@vane/client';
import { createVane, type VaneExpress } from '@vane/express';
import { startVaneServer, type VaneServer } from '@vane/server';
import { waitForChange } from '@vane/server/testing';
import { PROCESS_TEST_MS, spawnNode, stopProcesses } from '@vane/test-harness';
import request from 'supertest';
import { createApp } from '../../../sample-app/express/app.js';
import { startSample } from '../../../sample-app/express/server.js';
import { DEMO_API_KEY, DEMO_BASE_URL, vaneOptionsFromEnv } from '../../../sample-app/express/vane-options.js';

const ROOT = resolve(__dirname, '../../..');
const DEMO_SEED = join(ROOT, 'libs/server/seeds/demo.seed.json');
const quiet = { warn: () => undefined, error: () => undefined };

describe('the Express sample app', () => {
  let server: VaneServer;

  beforeEach(async () => {
    server = await startVaneServer({ seed: DEMO_SEED, port: 0 });
  });
  afterEach(() => server.close());

  it('reads its Vane options from the environment, defaulting to the demo seed', () => {
    expect(vaneOptionsFromEnv({})).toMatchObject({ baseUrl: DEMO_BASE_URL, apiKey: DEMO_API_KEY });
    expect(DEMO_BASE_URL).toBe('http://shop.localhost:4400');
    expect(server.secretKey('shop')).toBe(DEMO_API_KEY);
    expect(vaneOptionsFromEnv({ VANE_BASE_URL: 'http://x.localhost:1', VANE_API_KEY: 'svs_other' })).toMatchObject({
      baseUrl: 'http://x.localhost:1',
      apiKey: 'svs_other',
    });
  });

  describe('createApp(vane), mounted in process', () => {
    let vane: VaneExpress;

    beforeEach(async () => {
      vane = await createVane({ ...vaneOptionsFromEnv({ VANE_BASE_URL: server.baseUrl('shop') }), logger: quiet });
    });
    afterEach(() => vane.close());

    it('serves a live config read that follows the admin API', async () => {
      const app = createApp(vane);
      expect((await request(app).get('/greeting').expect(200)).body).toEqual({
        greeting: 'Hello from the Vane local server',
        poolMax: 10,
      });
      const changed = waitForChange(vane.client, (e) => e.key === 'greeting.text');
      server.admin.setConfig('shop', 'greeting.text', 'Hallo');
      await changed;
      expect((await request(app).get('/greeting').expect(200)).body.greeting).toBe('Hallo');
    });

    it('guards /checkout with new-checkout, and answers 404 once it is flipped off', async () => {
      const app = createApp(vane);
      expect((await request(app).get('/checkout').expect(200)).body).toEqual({ checkout: 'new' });
      const off = waitForChange(vane.client, (e) => e.key === 'new-checkout');
      server.admin.setFlag('shop', 'new-checkout', { is_enabled: false });
      await off;
      expect((await request(app).get('/checkout').expect(404)).body).toEqual({ statusCode: 404, message: 'Not Found' });
    });

    it('evaluates /pricing for the user: the DE cohort gets it, no user does not', async () => {
      const app = createApp(vane);
      expect(
        (await request(app).get('/pricing').set({ 'x-user-id': 'u-1', 'x-country': 'DE' }).expect(200)).body,
      ).toEqual({ pricing: 'new', discount: 0.15 });
      await request(app).get('/pricing').expect(404);
    });

    it('uses a text secret and a file secret without sending them', async () => {
      const app = createApp(vane);
      const payments = await request(app).get('/payments').expect(200);
      expect(payments.body).toEqual({ stripeConfigured: true, version: 1 });
      expect(payments.text).not.toContain('rk_test_local_not_a_real_key');
      const tls = await request(app).get('/tls').expect(200);
      expect(tls.body).toEqual({
        bytes: Buffer.byteLength('-----BEGIN CERTIFICATE-----\nTE9DQUwtREVNTy1WMg==\n-----END CERTIFICATE-----\n'),
        version: 2,
      });
    });

    it('answers a deleted secret through the error handler: 500, its code, no name', async () => {
      const app = createApp(vane);
      const gone = waitForChange(vane.client, (e) => e.key === 'stripe.api_key');
      server.admin.deleteSecret('shop', 'stripe.api_key');
      await gone;
      const res = await request(app).get('/payments').expect(500);
      expect(res.body).toEqual({
        statusCode: 500,
        code: 'VANE_SECRET_NOT_FOUND',
        message: 'A secret this route needs is not available.',
      });
    });
  });

  it('startSample() refuses to start on a wrong key, leaving nothing open', async () => {
    await expect(
      startSample(
        { VANE_BASE_URL: server.baseUrl('shop'), VANE_API_KEY: 'svs_wrong_key_for_the_sample', PORT: '0' },
        () => undefined,
      ),
    ).rejects.toMatchObject({
      code: 'VANE_UNAUTHORIZED',
    });
  });

  describe('main.ts, run as a process', () => {
    afterEach(async () => {
      // Only after a failed test: a killed sample cannot remove its file secrets, so they are swept as a next start would.
      if ((await stopProcesses()).length > 0) await sweepStaleSecretDirs();
    }, PROCESS_TEST_MS);

    it(
      'serves the routes, follows a flag flipped through the admin API, and stops cleanly on SIGTERM',
      async () => {
        const proc = spawnNode(
          ['--import', join(ROOT, 'scripts/ts-register.mjs'), join(ROOT, 'sample-app/express/main.ts')],
          {
            cwd: ROOT,
            env: {
              ...process.env,
              VANE_BASE_URL: server.baseUrl('shop'),
              VANE_API_KEY: server.secretKey('shop'),
              PORT: '0',
            },
          },
        );

        const [, url] = await proc.nextLine(/express sample listening on (http:\/\/\S+)/);
        const get = async (path: string, headers: Record<string, string> = {}) => {
          const res = await fetch(`${url}${path}`, { headers });
          return { status: res.status, body: (await res.json()) as unknown };
        };
        expect(await get('/greeting')).toEqual({
          status: 200,
          body: { greeting: 'Hello from the Vane local server', poolMax: 10 },
        });
        expect(await get('/checkout')).toEqual({ status: 200, body: { checkout: 'new' } });
        expect(await get('/pricing', { 'x-user-id': 'u-1', 'x-country': 'FR' })).toEqual({
          status: 200,
          body: { pricing: 'new', discount: 0.15 },
        });
        expect(await get('/payments')).toEqual({ status: 200, body: { stripeConfigured: true, version: 1 } });
        expect((await get('/tls')).status).toBe(200);

        // The sample logs every change it receives: wait for that line, then ask again.
        const flipped = proc.nextLine(/vane: flag new-checkout changed/);
        server.admin.setFlag('shop', 'new-checkout', { is_enabled: false });
        await flipped;
        expect(await get('/checkout')).toEqual({ status: 404, body: { statusCode: 404, message: 'Not Found' } });

        const stopped = proc.nextLine(/express sample stopped/);
        proc.child.kill('SIGTERM');
        await stopped;
        expect(await proc.exited).toEqual({ code: 0, signal: null });
        expect(proc.errorLines).toEqual([]);
      },
      PROCESS_TEST_MS,
    );
  });
});
