// The OpenFeature quick start, the whole file: `node quick-start.mjs` with VANE_BASE_URL and VANE_API_KEY
// set (the local server's demo seed has every key it reads). test/readme.slow-spec.ts runs it.
// #region openfeature-quick-start
import { OpenFeature, ProviderEvents } from '@openfeature/server-sdk';
import { VaneProvider } from '@vane/openfeature';

// The blocking initial sync runs here: every flag and config in memory, or a typed error (match on `code`).
await OpenFeature.setProviderAndWait(
  new VaneProvider({
    baseUrl: process.env.VANE_BASE_URL, // e.g. http://shop.localhost:4400, the local server
    apiKey: process.env.VANE_API_KEY, // svs_… or svp_… (the provider never reads secrets)
    abFlags: (flagKey) => flagKey === 'new-pricing', // evaluated per user by the service, given a targetingKey
  }),
);
const features = OpenFeature.getClient();

// Plain flags and configs are read from memory: no request.
console.log(`new-checkout: ${await features.getBooleanValue('new-checkout', false)}`);
console.log(`greeting.text: ${await features.getStringValue('greeting.text', 'Hello')}`);
// An A/B flag with a targetingKey: evaluated for this user (attributes are strings).
const user = { targetingKey: 'u-1', country: 'DE' };
console.log(`new-pricing for u-1 in DE: ${await features.getBooleanValue('new-pricing', false, user)}`);

// A config or flag changed in the console (or through the admin API) reaches the next evaluation.
OpenFeature.addHandler(ProviderEvents.ConfigurationChanged, async ({ flagsChanged = [] }) => {
  for (const key of flagsChanged.filter((k) => k === 'greeting.text'))
    console.log(`${key} changed: ${await features.getStringValue(key, 'Hello')}`);
});
// SIGTERM: close the provider's client (stream, timers, sockets), then the process ends by itself.
process.once('SIGTERM', () => void OpenFeature.close());
// #endregion openfeature-quick-start
