import { startVaneServer, type VaneServer } from '@vane/server';
import { get, openEventStream } from './support/http.js';
import { killLeftovers } from './support/process.js';
import { DEMO_SEED, ROOT, baseEnv, startSample, changeAndWait, type RunningSample } from './support/samples.js';
import { spawnNode } from './support/process.js';
import { PROCESS_TEST_MS } from '@vane/test-harness';

// The NestJS sample (sample-app/src), built, run as a user runs it: `node
// sample-app/dist/main.js` against the local server on the demo seed. Values
// change through the admin API over HTTP; each test waits for the app's own
// log line saying the change arrived ("vane: flag new-checkout changed"), then asks again.
describe('the NestJS sample app, as a process', () => {
  let server: VaneServer;
  let app: RunningSample;

  beforeEach(async () => {
    server = await startVaneServer({ seed: DEMO_SEED, port: 0 });
    app = await startSample('nest', server);
  }, PROCESS_TEST_MS);

  afterEach(async () => {
    await killLeftovers();
    await server.close();
  }, PROCESS_TEST_MS);

  it(
    'serves every feature on the demo seed',
    async () => {
      expect((await get(`${app.url}/greeting`)).body).toEqual({
        greeting: 'Hello from the Vane local server',
        changes: 0,
      });
      expect(await get(`${app.url}/checkout`)).toMatchObject({ status: 200, body: { checkout: 'new' } });
      expect(await get(`${app.url}/dashboard`)).toMatchObject({ status: 403 }); // beta-dashboard is off
      expect(await get(`${app.url}/db`)).toMatchObject({
        status: 200,
        body: { host: 'localhost', port: 5432, poolMax: 10 },
      });

      const payments = await get(`${app.url}/payments`);
      expect(payments).toMatchObject({
        status: 200,
        body: { stripeConfigured: true, length: 'rk_test_local_not_a_real_key'.length, version: 1 },
      });
      expect(payments.text).not.toContain('rk_test');

      const tls = await get(`${app.url}/tls`);
      expect(tls).toMatchObject({ status: 200, body: { exists: true, version: 2 } });
      expect(tls.body.bytes).toBeGreaterThan(0);
      expect(tls.text).not.toContain('CERTIFICATE');

      const health = await get(`${app.url}/health`);
      expect(health).toMatchObject({
        status: 200,
        body: { status: 'ok', info: { vane: { status: 'up', mode: 'stream', connected: true } } },
      });
    },
    PROCESS_TEST_MS,
  );

  it(
    'the A/B route: on for a DE or FR user, off for this user elsewhere and for anonymous callers',
    async () => {
      // In the demo seed, new-pricing is on for country DE/FR (100 %) and for 50 % of the rest; user u-2 is outside those 50 %.
      expect(await get(`${app.url}/pricing`, { 'x-user-id': 'u-2', 'x-country': 'DE' })).toMatchObject({
        status: 200,
        body: { pricing: 'new', discount: 0.15 },
      });
      expect(await get(`${app.url}/pricing?user=u-2&country=FR`)).toMatchObject({ status: 200 });
      expect(await get(`${app.url}/pricing`, { 'x-user-id': 'u-2', 'x-country': 'US' })).toMatchObject({ status: 404 });
      expect(await get(`${app.url}/pricing`)).toMatchObject({ status: 404 });
      expect((await get(`${app.url}/pricing/variant?user=u-2&country=DE`)).body).toEqual({ variant: 'new' });
      expect((await get(`${app.url}/pricing/variant?user=u-2&country=US`)).body).toEqual({ variant: 'classic' });
    },
    PROCESS_TEST_MS,
  );

  it(
    'a flag flipped in the admin API changes the guarded route at once, both ways',
    async () => {
      expect((await get(`${app.url}/checkout`)).status).toBe(200);
      await changeAndWait(server, app, 'flag', 'new-checkout', { is_enabled: false });
      expect(await get(`${app.url}/checkout`)).toMatchObject({
        status: 404,
        body: { message: 'Cannot GET /checkout' },
      });
      await changeAndWait(server, app, 'flag', 'new-checkout', { is_enabled: true });
      expect((await get(`${app.url}/checkout`)).status).toBe(200);

      expect((await get(`${app.url}/dashboard`)).status).toBe(403);
      await changeAndWait(server, app, 'flag', 'beta-dashboard', { is_enabled: true });
      expect(await get(`${app.url}/dashboard`)).toMatchObject({ status: 200, body: { dashboard: 'beta' } });
    },
    PROCESS_TEST_MS,
  );

  it(
    'a config change reaches the observable, the SSE stream and ConfigService',
    async () => {
      const events = await openEventStream(`${app.url}/greeting/stream`);
      try {
        expect(await events.next()).toEqual({ greeting: 'Hello from the Vane local server' });
        await changeAndWait(server, app, 'config', 'greeting.text', { value: 'Hi from the test' });
        expect(await events.next()).toEqual({ greeting: 'Hi from the test' });
        expect((await get(`${app.url}/greeting`)).body).toEqual({ greeting: 'Hi from the test', changes: 1 });
      } finally {
        events.close();
      }

      await changeAndWait(server, app, 'config', 'db.pool.max', { value: 42 });
      expect((await get(`${app.url}/db`)).body).toMatchObject({ poolMax: 42 });
    },
    PROCESS_TEST_MS,
  );

  it(
    'a rotated secret is injected on the next request (text and file)',
    async () => {
      await changeAndWait(server, app, 'secret', 'stripe.api_key', { value: 'rk_test_rotated' });
      const payments = await get(`${app.url}/payments`);
      expect(payments.body).toEqual({ stripeConfigured: true, length: 'rk_test_rotated'.length, version: 2 });
      expect(payments.text).not.toContain('rk_test');

      const pem = '-----BEGIN CERTIFICATE-----\nROTATED-IN-THE-TEST\n-----END CERTIFICATE-----\n';
      await changeAndWait(server, app, 'secret', 'tls.client_pem', { value: pem, type: 'file' });
      expect((await get(`${app.url}/tls`)).body).toEqual({ exists: true, bytes: Buffer.byteLength(pem), version: 3 });
    },
    PROCESS_TEST_MS,
  );

  it(
    'SIGTERM closes the app and the process exits 0',
    async () => {
      const stopped = app.proc.nextLine(/nest sample stopped/);
      app.proc.child.kill('SIGTERM');
      await stopped;
      await expect(app.proc.exited).resolves.toEqual({ code: 0, signal: null });
    },
    PROCESS_TEST_MS,
  );

  it(
    'a wrong key stops the start: exit 1, with the error code',
    async () => {
      const proc = spawnNode(['sample-app/dist/main.js'], {
        cwd: ROOT,
        env: {
          ...baseEnv(),
          VANE_BASE_URL: server.baseUrl('shop'),
          VANE_API_KEY: 'svs_not_a_key_of_this_service',
          PORT: '0',
        },
      });
      const exit = await proc.exited;
      expect(exit.code).toBe(1);
      expect(proc.lines.join('\n')).toContain('VANE_UNAUTHORIZED');
      expect(proc.lines.join('\n')).not.toContain('svs_not_a_key_of_this_service');
    },
    PROCESS_TEST_MS,
  );
});
