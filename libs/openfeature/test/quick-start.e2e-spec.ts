import { ProviderEvents } from '@openfeature/server-sdk';
import { startVaneServer, type VaneServer } from '@vane/server';
import { checkout, startFeatures, stopFeatures } from './quick-start.js';
import { SECRET_KEY, testSeed } from './support/seed.js';
import { until } from '@vane/server/testing';

let server: VaneServer;

beforeAll(async () => {
  const seed = testSeed();
  seed.services!['shop']!.flags!['exp-pricing'] = {
    is_enabled: true,
    ab: {
      percentage: 0,
      salt: 'xp-1',
      cohorts: [{ conditions: [{ attribute: 'country', op: 'eq', values: ['DE'] }], percentage: 100 }],
    },
  };
  server = await startVaneServer({ seed, port: 0 });
});

afterAll(() => server.close());

it('the quick start reads flags and configs from memory and A/B flags per user, live', async () => {
  const features = await startFeatures({ VANE_BASE_URL: server.baseUrl('shop'), VANE_API_KEY: SECRET_KEY });
  try {
    await expect(checkout(features, 'user-1', 'DE')).resolves.toEqual({
      newCheckout: true,
      newPricing: true,
      greeting: 'Hello',
      poolMax: 10,
    });
    await expect(checkout(features, 'user-1', 'US')).resolves.toMatchObject({ newPricing: false });

    const changed = new Promise<void>((resolve) =>
      features.addHandler(ProviderEvents.ConfigurationChanged, (details) => {
        if (details?.flagsChanged?.includes('new-checkout')) resolve();
      }),
    );
    server.admin.setFlag('shop', 'new-checkout', { is_enabled: false });
    await changed;
    await expect(checkout(features, 'user-1', 'DE')).resolves.toMatchObject({ newCheckout: false });
  } finally {
    await stopFeatures();
  }
  await until(() => server.stats().streams === 0, "the provider's stream to close");
});
