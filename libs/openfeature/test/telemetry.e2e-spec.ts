import { OpenFeature } from '@openfeature/server-sdk';
import { startVaneServer, type VaneServer } from '@vane/server';
import { OtelSdk } from '../../client/test/helpers/otel-sdk.js';
import { VaneProvider } from '../src/index.js';
import { SECRET_KEY, SECRET_VALUE, testSeed } from './support/seed.js';

/** The provider's flag decisions as feature_flag.evaluation events, with the OpenTelemetry SDK registered. */
let sdk: OtelSdk;
let server: VaneServer;

beforeEach(async () => {
  sdk = OtelSdk.install();
  server = await startVaneServer({ seed: testSeed(), port: 0 });
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

it('configs: every string, number and object evaluation is an event, with the value only when it is a number', async () => {
  await provide(false);
  const client = OpenFeature.getClient();
  const { span } = await sdk.inSpan('GET /page', async () => {
    await client.getStringValue('greeting.text', 'hi', { targetingKey: 'u-1' });
    await client.getNumberValue('db.pool.max', 5);
    await client.getObjectValue('plans.order', []);
    await client.getStringValue('no-such-config', 'fallback-text');
    await client.getNumberValue('greeting.text', 7);
  });
  const common = { 'feature_flag.provider.name': 'vane', 'feature_flag.version': String(server.revision('shop')) };
  expect(span.events.map((e) => [e.name, e.attributes])).toEqual([
    [
      'feature_flag.evaluation',
      { ...common, 'feature_flag.key': 'greeting.text', 'feature_flag.result.reason': 'static' },
    ],
    [
      'feature_flag.evaluation',
      {
        ...common,
        'feature_flag.key': 'db.pool.max',
        'feature_flag.result.reason': 'static',
        'feature_flag.result.value': 10,
      },
    ],
    [
      'feature_flag.evaluation',
      { ...common, 'feature_flag.key': 'plans.order', 'feature_flag.result.reason': 'static' },
    ],
    [
      'feature_flag.evaluation',
      {
        ...common,
        'feature_flag.key': 'no-such-config',
        'feature_flag.result.reason': 'error',
        'error.type': 'flag_not_found',
      },
    ],
    // The caller's default (a number) is what the evaluation answered.
    [
      'feature_flag.evaluation',
      {
        ...common,
        'feature_flag.key': 'greeting.text',
        'feature_flag.result.reason': 'error',
        'error.type': 'type_mismatch',
        'feature_flag.result.value': 7,
      },
    ],
  ]);
  // A config's text, an array's items, the caller's text default and the user are never recorded.
  const recorded = (await sdk.everyRecordedText()).join('\n');
  for (const value of ['Hello', 'basic', 'fallback-text', 'u-1', SECRET_KEY, SECRET_VALUE])
    expect(recorded).not.toContain(value);
});

it('A/B flags: an anonymous user, an invalid context and a failed call are events too', async () => {
  await provide(false);
  const client = OpenFeature.getClient();
  server.admin.setTenant({ ab_addon: false });
  const { span } = await sdk.inSpan('GET /page', async () => {
    await client.getBooleanValue('new-pricing', true);
    await client.getBooleanValue('new-pricing', true, { targetingKey: 'u-1', country: 3 });
    await client.getBooleanValue('new-pricing', true, { targetingKey: 'u-2', country: 'DE' });
  });
  expect(span.events.map((e) => e.attributes)).toEqual([
    expect.objectContaining({ 'feature_flag.result.reason': 'disabled', 'feature_flag.result.value': false }),
    expect.objectContaining({ 'feature_flag.result.reason': 'error', 'error.type': 'invalid_context' }),
    expect.objectContaining({ 'feature_flag.result.reason': 'error', 'error.type': 'VANE_ADDON_NOT_AVAILABLE' }),
  ]);
  expect(span.events.every((e) => e.attributes?.['feature_flag.key'] === 'new-pricing')).toBe(true);
});
