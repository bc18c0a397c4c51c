import { OpenFeature, ProviderEvents, type EventDetails } from '@openfeature/web-sdk';
import { startVaneServer, type VaneServer } from '@vane/server';
import { TEST_KEYS, adminRequest, testSeed, waitForEvent } from '@vane/server/testing';
import { VaneBrowserClient } from '@vane/browser';
import { VaneWebProvider } from '@vane/openfeature/web';
import { loopbackFetch, type LoopbackFetch } from '../../../test/support/loopback-fetch.js';

/** The web provider against the local server, through the web SDK's own API. */
let server: VaneServer;
let net: LoopbackFetch;

beforeEach(async () => {
  server = await startVaneServer({ seed: testSeed(), port: 0 });
  net = loopbackFetch();
});

afterEach(async () => {
  await OpenFeature.close();
  await net.close();
  await server.close();
});

function provider(): VaneWebProvider {
  return new VaneWebProvider({
    options: { baseUrl: `http://shop.localhost:${server.port}`, apiKey: TEST_KEYS.shopPublic, fetch: net.fetch },
    abKeys: ['new-pricing'],
  });
}

it('resolves flags, configs and A/B answers for the context user', async () => {
  await OpenFeature.setContext({ targetingKey: 'u-1', country: 'DE' });
  await OpenFeature.setProviderAndWait(provider());
  const client = OpenFeature.getClient();
  expect(client.getBooleanValue('new-checkout', false)).toBe(true);
  expect(client.getBooleanDetails('beta', true)).toMatchObject({ value: false, reason: 'DISABLED' });
  expect(client.getStringValue('db.host', 'x')).toBe('localhost');
  expect(client.getNumberValue('db.pool.max', 0)).toBe(10);
  expect(client.getObjectValue('cors.origins', [])).toEqual(['https://a.example']);
  expect(client.getNumberDetails('db.host', 7)).toMatchObject({ value: 7, errorCode: 'TYPE_MISMATCH' });
  expect(client.getBooleanDetails('nope', true)).toMatchObject({ value: true, errorCode: 'FLAG_NOT_FOUND' });

  // The context change asks the answers before it settles: the first read already has it.
  await OpenFeature.setContext({ targetingKey: 'u-1', country: 'DE' });
  expect(client.getBooleanDetails('new-pricing', false)).toMatchObject({ value: true, reason: 'TARGETING_MATCH' });
  await OpenFeature.setContext({ targetingKey: 'u-2', country: 'US' });
  expect(client.getBooleanValue('new-pricing', true)).toBe(false);
});

it('emits ConfigurationChanged with the keys of a new revision', async () => {
  await OpenFeature.setProviderAndWait(provider());
  const changed = waitForEvent<EventDetails | undefined>(
    (listener) => {
      OpenFeature.addHandler(ProviderEvents.ConfigurationChanged, listener);
      return () => OpenFeature.removeHandler(ProviderEvents.ConfigurationChanged, listener);
    },
    (details) => (details?.flagsChanged as string[] | undefined)?.includes('banner.text') === true,
    { timeoutMs: 10_000 },
  );
  await adminRequest(server, 'PUT', '/services/shop/configs/banner.text', { value: 'hello' });
  await changed;
  expect(OpenFeature.getClient().getStringValue('banner.text', '')).toBe('hello');
});

it('without abKeys, a context sets no user: a client without the A/B plug-in serves flags and configs', async () => {
  const client = new VaneBrowserClient({
    baseUrl: `http://shop.localhost:${server.port}`,
    apiKey: TEST_KEYS.shopPublic,
    fetch: net.fetch,
  });
  await OpenFeature.setContext({ targetingKey: 'u-1', country: 'DE' });
  await OpenFeature.setProviderAndWait(new VaneWebProvider({ client }));
  await OpenFeature.setContext({ targetingKey: 'u-2' });
  expect(OpenFeature.getClient().getBooleanValue('new-checkout', false)).toBe(true);
  // The A/B methods are the plug-in's: the provider never called them.
  expect(() => client.abFlag('new-pricing')).toThrow(expect.objectContaining({ code: 'VANE_INVALID_ARGUMENT' }));
  client.close();
});
