import { OpenFeature, ProviderEvents, type EventDetails } from '@openfeature/server-sdk';
import { VaneClient } from '@vane/client';
import { startVaneServer, type VaneServer } from '@vane/server';
import { VaneProvider } from '../src/index.js';
import { SECRET_KEY, SECRET_VALUE, testSeed } from './support/seed.js';
import { nextEvent, recordEvents } from './support/wait.js';
import { adminPut, until, waitForStatus } from '@vane/server/testing';
import { FaultProxy } from '@vane/test-harness';

const silent = { warn: () => undefined, error: () => undefined };

let server: VaneServer;
let proxy: FaultProxy;

beforeEach(async () => {
  server = await startVaneServer({ seed: testSeed(), port: 0 });
  proxy = await FaultProxy.start(server.port);
});

afterEach(async () => {
  await OpenFeature.close();
  await proxy.close();
  await server.close();
});

/** Waits (bounded) until the local server has `n` open streams. */
function streamsOpen(n: number): Promise<void> {
  return until(() => server.stats().streams === n, `${n} open streams`);
}

it('Ready once the initial sync is done, then ConfigurationChanged for each live change of flags and configs, never secrets', async () => {
  const provider = new VaneProvider({ baseUrl: proxy.baseUrl('shop'), apiKey: SECRET_KEY, logger: silent });
  const ready = new Promise<EventDetails | undefined>((resolve) =>
    OpenFeature.addHandler(ProviderEvents.Ready, resolve),
  );
  await OpenFeature.setProviderAndWait(provider);
  await expect(ready).resolves.toBeDefined();
  const client = OpenFeature.getClient();
  expect(client.providerStatus).toBe('READY');
  await streamsOpen(1);

  const fromClient: EventDetails[] = [];
  client.addHandler(ProviderEvents.ConfigurationChanged, (d) => void (d && fromClient.push(d)));

  const flagChange = nextEvent(provider, ProviderEvents.ConfigurationChanged);
  await adminPut(server, 'services/shop/flags/beta', { is_enabled: true });
  const flag = await flagChange;
  expect(flag).toMatchObject({ flagsChanged: ['beta'], metadata: { revision: server.revision('shop') } });
  await expect(client.getBooleanDetails('beta', false)).resolves.toMatchObject({ value: true, reason: 'STATIC' });

  // A secret change is not an OpenFeature change: the next event names the config alone.
  const configChange = nextEvent(provider, ProviderEvents.ConfigurationChanged);
  server.admin.setSecret('shop', 'stripe.api_key', 'rk_test_rotated');
  await adminPut(server, 'services/shop/configs/greeting.text', { value: 'Bonjour' });
  await expect(configChange).resolves.toMatchObject({ flagsChanged: ['greeting.text'] });
  await expect(client.getStringValue('greeting.text', '')).resolves.toBe('Bonjour');

  expect(fromClient.map((d) => d.flagsChanged)).toEqual([['beta'], ['greeting.text']]);
  const printed = JSON.stringify(fromClient);
  for (const secret of [SECRET_KEY, SECRET_VALUE, 'rk_test_rotated']) expect(printed).not.toContain(secret);
});

it('Stale while the stream has fallen back to polling, Ready when it reconnects', async () => {
  // An adopted client, so that the test can wait until its stream is connected before cutting it.
  const vane = await VaneClient.create({
    baseUrl: proxy.baseUrl('shop'),
    apiKey: SECRET_KEY,
    logger: silent,
    streamErrorThreshold: 1,
    backoffMinMs: 20,
    backoffMaxMs: 40,
    streamCooldownMs: 200,
  });
  try {
    const provider = new VaneProvider(vane);
    await OpenFeature.setProviderAndWait(provider);
    const client = OpenFeature.getClient();
    await waitForStatus(vane, (s) => s.connected, { what: 'the stream to connect' });
    const seen = recordEvents(provider, [ProviderEvents.Stale, ProviderEvents.Ready, ProviderEvents.Error]);

    const stale = nextEvent(provider, ProviderEvents.Stale);
    proxy.cutStreams(true);
    await expect(stale).resolves.toMatchObject({ message: expect.stringContaining('polling') });
    expect(client.providerStatus).toBe('STALE');
    // Values are still served from the cache while stale.
    await expect(client.getBooleanValue('new-checkout', false)).resolves.toBe(true);

    const ready = nextEvent(provider, ProviderEvents.Ready);
    proxy.cutStreams(false);
    await ready;
    expect(client.providerStatus).toBe('READY');
    expect(seen).toEqual([ProviderEvents.Stale, ProviderEvents.Ready]);
  } finally {
    await vane.close();
  }
});

it('Stale while billing is overdue, Ready when a sync succeeds again; an adopted client is left open', async () => {
  const vane = await VaneClient.create({
    baseUrl: proxy.baseUrl('shop'),
    apiKey: SECRET_KEY,
    logger: silent,
    stream: false,
  });
  try {
    const provider = new VaneProvider(vane);
    await OpenFeature.setProviderAndWait(provider);
    const client = OpenFeature.getClient();

    const stale = nextEvent(provider, ProviderEvents.Stale);
    server.admin.setTenant({ overdue_days: 30 });
    await expect(vane.sync()).rejects.toMatchObject({ code: 'VANE_BILLING_OVERDUE' });
    await expect(stale).resolves.toMatchObject({ message: expect.stringContaining('VANE_BILLING_OVERDUE') });
    expect(client.providerStatus).toBe('STALE');
    await expect(client.getStringValue('greeting.text', '')).resolves.toBe('Hello');

    const ready = nextEvent(provider, ProviderEvents.Ready);
    server.admin.setTenant({ overdue_days: 0 });
    await vane.sync();
    await ready;
    expect(client.providerStatus).toBe('READY');

    await OpenFeature.close();
    expect(vane.closed).toBe(false);
    expect(vane.config('greeting.text')).toBe('Hello');
  } finally {
    await vane.close();
  }
});

it('a client adopted while billing is overdue turns Stale right after Ready', async () => {
  const vane = await VaneClient.create({
    baseUrl: proxy.baseUrl('shop'),
    apiKey: SECRET_KEY,
    logger: silent,
    stream: false,
  });
  try {
    server.admin.setTenant({ overdue_days: 30 });
    await expect(vane.sync()).rejects.toMatchObject({ code: 'VANE_BILLING_OVERDUE' });
    const provider = new VaneProvider(vane);
    const stale = nextEvent(provider, ProviderEvents.Stale);
    await OpenFeature.setProviderAndWait(provider);
    await stale;
    expect(OpenFeature.getClient().providerStatus).toBe('STALE');
  } finally {
    await vane.close();
  }
});

it('onClose() closes the client the provider created', async () => {
  const provider = new VaneProvider({ baseUrl: proxy.baseUrl('shop'), apiKey: SECRET_KEY, logger: silent });
  await OpenFeature.setProviderAndWait(provider);
  await streamsOpen(1);
  await OpenFeature.close();
  await streamsOpen(0);
});
