import { startVaneServer, type VaneServer } from '@vane/server';
import { get } from './support/http.js';
import { killLeftovers } from './support/process.js';
import { DEMO_SEED, startSample, changeAndWait, type RunningSample } from './support/samples.js';
import { PROCESS_TEST_MS } from '@vane/test-harness';

// The Express sample (sample-app/express), built, run as a user runs it:
// `node sample-app/express/dist/main.js` against the local server on the demo
// seed. It logs every change it receives ("vane: flag new-checkout changed"):
// each test waits for that line after a change made through the admin API.
describe('the Express sample app, as a process', () => {
  let server: VaneServer;
  let app: RunningSample;

  beforeEach(async () => {
    server = await startVaneServer({ seed: DEMO_SEED, port: 0 });
    app = await startSample('express', server);
  }, PROCESS_TEST_MS);

  afterEach(async () => {
    await killLeftovers();
    await server.close();
  }, PROCESS_TEST_MS);

  it(
    'serves every feature on the demo seed, without a secret value in any answer',
    async () => {
      expect((await get(`${app.url}/greeting`)).body).toEqual({
        greeting: 'Hello from the Vane local server',
        poolMax: 10,
      });
      expect(await get(`${app.url}/checkout`)).toMatchObject({ status: 200, body: { checkout: 'new' } });
      const payments = await get(`${app.url}/payments`);
      expect(payments).toMatchObject({ status: 200, body: { stripeConfigured: true, version: 1 } });
      expect(payments.text).not.toContain('rk_test');
      const tls = await get(`${app.url}/tls`);
      expect(tls).toMatchObject({ status: 200, body: { version: 2 } });
      expect(tls.text).not.toContain('CERTIFICATE');
    },
    PROCESS_TEST_MS,
  );

  it(
    'the A/B route: on for a DE user, off for the same user elsewhere and for anonymous callers',
    async () => {
      expect(await get(`${app.url}/pricing`, { 'x-user-id': 'u-2', 'x-country': 'DE' })).toMatchObject({
        status: 200,
        body: { pricing: 'new', discount: 0.15 },
      });
      expect(await get(`${app.url}/pricing`, { 'x-user-id': 'u-2', 'x-country': 'FR' })).toMatchObject({ status: 200 });
      expect(await get(`${app.url}/pricing`, { 'x-user-id': 'u-2', 'x-country': 'US' })).toMatchObject({ status: 404 });
      expect(await get(`${app.url}/pricing`)).toMatchObject({ status: 404 });
    },
    PROCESS_TEST_MS,
  );

  it(
    'flag, config and secret changes reach the next request',
    async () => {
      await changeAndWait(server, app, 'flag', 'new-checkout', { is_enabled: false });
      expect(await get(`${app.url}/checkout`)).toMatchObject({
        status: 404,
        body: { statusCode: 404, message: 'Not Found' },
      });
      await changeAndWait(server, app, 'flag', 'new-checkout', { is_enabled: true });
      expect((await get(`${app.url}/checkout`)).status).toBe(200);

      await changeAndWait(server, app, 'config', 'greeting.text', { value: 'Hi from the test' });
      expect((await get(`${app.url}/greeting`)).body).toMatchObject({ greeting: 'Hi from the test' });

      await changeAndWait(server, app, 'secret', 'stripe.api_key', { value: 'rk_test_rotated' });
      expect((await get(`${app.url}/payments`)).body).toEqual({ stripeConfigured: true, version: 2 });
    },
    PROCESS_TEST_MS,
  );

  it(
    'SIGTERM closes the app and the process exits 0',
    async () => {
      // An answer proves the process is past its startup code, signal handlers included.
      expect((await get(`${app.url}/checkout`)).status).toBe(200);
      const stopped = app.proc.nextLine(/express sample stopped/);
      app.proc.child.kill('SIGTERM');
      await stopped;
      await expect(app.proc.exited).resolves.toEqual({ code: 0, signal: null });
    },
    PROCESS_TEST_MS,
  );
});
