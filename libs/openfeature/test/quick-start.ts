// The README's quick start, run by quick-start.e2e-spec.ts against the local server.
import { OpenFeature, type Client } from '@openfeature/server-sdk';
import { VaneProvider } from '@vane/openfeature';

/** Sets Vane as OpenFeature's provider and returns OpenFeature's client. */
export async function startFeatures(env: NodeJS.ProcessEnv): Promise<Client> {
  // #region setup
  // The blocking initial sync runs here: every flag and config in memory, or a typed error (match on `code`).
  await OpenFeature.setProviderAndWait(
    new VaneProvider({
      baseUrl: env['VANE_BASE_URL']!, // e.g. https://shop.vane.example
      apiKey: env['VANE_API_KEY']!, // svs_… or svp_… (the provider never reads secrets)
      abFlags: (flagKey) => flagKey.startsWith('exp-'), // evaluated per user when a targetingKey is given
    }),
  );
  const features = OpenFeature.getClient();
  // #endregion setup
  return features;
}

/** What a request handler reads. */
export async function checkout(
  features: Client,
  userId: string,
  country: string,
): Promise<{ newCheckout: boolean; newPricing: boolean; greeting: string; poolMax: number }> {
  // #region evaluate
  // Plain flags and configs are read from memory: no request.
  const newCheckout = await features.getBooleanValue('new-checkout', false);
  const greeting = await features.getStringValue('greeting.text', 'Hello');
  const poolMax = await features.getNumberValue('db.pool.max', 10);
  // An A/B flag with a targetingKey: evaluated for this user by the service (attributes must be strings).
  const newPricing = await features.getBooleanValue('exp-pricing', false, { targetingKey: userId, country });
  // #endregion evaluate
  return { newCheckout, newPricing, greeting, poolMax };
}

/** On shutdown. */
export async function stopFeatures(): Promise<void> {
  // #region shutdown
  await OpenFeature.close(); // closes the provider's client: stream, timers and sockets
  // #endregion shutdown
}
