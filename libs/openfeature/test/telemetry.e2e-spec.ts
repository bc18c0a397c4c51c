import { OpenFeature } from '@openfeature/server-sdk';
import { startLocalServer, type LocalServer } from '@vane/local-server';
import { OtelSdk } from '../../client/test/helpers/otel-sdk.js';
import { VaneProvider } from '../src/index.js';
import { SECRET_KEY, SECRET_VALUE, testSeed } from './support/seed.js';

/** The provider's flag decisions as feature_flag.evaluation events, with the OpenTelemetry SDK registered. */
let sdk: OtelSdk;
let server: LocalServer;

beforeEach(async () => {
  sdk = OtelSdk.install();
  server = await startLocalServer({ seed: testSeed(), port: 0 });
});
afterEach(async () => {
  await OpenFeature.close();
  await server.close();
  await sdk.uninstall();
});

async function provide(recordUserId: boolean): Promise<void> {
  await OpenFeature.setProviderAndWait(
    new VaneProvider({
      baseUrl: server.baseUrl('shop'),
      apiKey: SECRET_KEY,
      logger: { warn: () => undefined, error: () => undefined },
      abFlags: (key) => key === 'new-pricing',
      telemetry: { recordUserId },
    }),
  );
}

it('plain, missing and A/B flags: one event each on the active span, in OpenTelemetry words', async () => {
  await provide(false);
  const client = OpenFeature.getClient();
  const { span } = await sdk.inSpan('GET /page', async () => {
    await client.getBooleanValue('new-checkout', false, { targetingKey: 'u-1' });
    await client.getBooleanValue('beta', true);
    await client.getBooleanValue('no-such-flag', true);
    await client.getBooleanValue('new-pricing', false, { targetingKey: 'u-1', country: 'DE' });
  });
  const version = String(server.revision('shop'));
  expect(span.events.map((e) => e.attributes)).toEqual([
    {
      'feature_flag.key': 'new-checkout',
      'feature_flag.provider.name': 'vane',
      'feature_flag.result.value': true,
      'feature_flag.result.reason': 'static',
      'feature_flag.version': version,
    },
    expect.objectContaining({ 'feature_flag.key': 'beta', 'feature_flag.result.reason': 'disabled' }),
    expect.objectContaining({
      'feature_flag.key': 'no-such-flag',
      'feature_flag.result.value': true,
      'feature_flag.result.reason': 'error',
      'error.type': 'flag_not_found',
    }),
    expect.objectContaining({ 'feature_flag.key': 'new-pricing', 'feature_flag.result.reason': 'targeting_match' }),
  ]);
  expect(JSON.stringify(span.events)).not.toContain('u-1');
  const recorded = (await sdk.everyRecordedText()).join('\n');
  expect(recorded).not.toContain(SECRET_KEY);
  expect(recorded).not.toContain(SECRET_VALUE);
});

it('the targeting key as feature_flag.context.id when the app opts in', async () => {
  await provide(true);
  const client = OpenFeature.getClient();
  const { span } = await sdk.inSpan('GET /page', () =>
    client.getBooleanValue('new-checkout', false, { targetingKey: 'u-9' }),
  );
  expect(span.events[0]!.attributes).toMatchObject({ 'feature_flag.context.id': 'u-9' });
});
