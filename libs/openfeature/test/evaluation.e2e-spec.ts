import { inspect } from 'node:util';
import { ErrorCode, OpenFeature, StandardResolutionReasons, type Client } from '@openfeature/server-sdk';
import { startVaneServer, type VaneServer } from '@vane/server';
import { VaneProvider } from '../src/index.js';
import { SECRET_KEY, SECRET_VALUE, testSeed } from './support/seed.js';
import { FaultProxy } from '@vane/test-harness';

const silent = { warn: () => undefined, error: () => undefined };

let server: VaneServer;
let proxy: FaultProxy;
let provider: VaneProvider;
let client: Client;

beforeAll(async () => {
  server = await startVaneServer({ seed: testSeed(), port: 0 });
  proxy = await FaultProxy.start(server.port);
  provider = new VaneProvider({
    baseUrl: proxy.baseUrl('shop'),
    apiKey: SECRET_KEY,
    logger: silent,
    abFlags: (key) => key === 'new-pricing' || key === 'dark-mode',
  });
  await OpenFeature.setProviderAndWait(provider);
  client = OpenFeature.getClient();
});

afterAll(async () => {
  await OpenFeature.close();
  await proxy.close();
  await server.close();
});

describe('booleans are flags', () => {
  it('a flag that is on: true, STATIC, with the snapshot revision', async () => {
    const details = await client.getBooleanDetails('new-checkout', false);
    expect(details).toMatchObject({ value: true, reason: StandardResolutionReasons.STATIC });
    expect(details.errorCode).toBeUndefined();
    expect(details.flagMetadata).toEqual({ revision: server.revision('shop') });
  });

  it('a flag defined and off: false, DISABLED', async () => {
    const details = await client.getBooleanDetails('beta', true);
    expect(details).toMatchObject({ value: false, reason: StandardResolutionReasons.DISABLED });
    expect(details.errorCode).toBeUndefined();
  });

  it('an undefined flag: the default, FLAG_NOT_FOUND', async () => {
    const details = await client.getBooleanDetails('no-such-flag', true);
    expect(details).toMatchObject({
      value: true,
      reason: StandardResolutionReasons.ERROR,
      errorCode: ErrorCode.FLAG_NOT_FOUND,
      errorMessage: 'flag "no-such-flag" is not defined',
    });
  });

  it('a boolean config is not a flag: FLAG_NOT_FOUND', async () => {
    const details = await client.getBooleanDetails('maintenance.enabled', true);
    expect(details).toMatchObject({ value: true, errorCode: ErrorCode.FLAG_NOT_FOUND });
  });
});

describe('strings, numbers and objects are configs', () => {
  it('each JSON type is answered as itself, STATIC, with the revision', async () => {
    const revision = server.revision('shop');
    await expect(client.getStringDetails('greeting.text', 'x')).resolves.toMatchObject({
      value: 'Hello',
      reason: StandardResolutionReasons.STATIC,
      flagMetadata: { revision },
    });
    await expect(client.getNumberDetails('db.pool.max', 1)).resolves.toMatchObject({ value: 10, reason: 'STATIC' });
    await expect(client.getObjectDetails('plans.order', [])).resolves.toMatchObject({
      value: ['basic', 'pro', 'team'],
      reason: 'STATIC',
    });
    await expect(client.getObjectValue('cors.origins', [])).resolves.toEqual(['https://a.example']);
  });

  it.each([
    ['string', 'db.pool.max', 'config "db.pool.max" holds a number, not a string'],
    ['number', 'greeting.text', 'config "greeting.text" holds a string, not a number'],
    ['object', 'greeting.text', 'config "greeting.text" holds a string, not an object'],
    ['object', 'banner.text', 'config "banner.text" holds a null, not an object'],
    ['string', 'maintenance.enabled', 'config "maintenance.enabled" holds a boolean, not a string'],
  ] as const)('%s asked of %s: the default, TYPE_MISMATCH', async (type, key, message) => {
    const details =
      type === 'string'
        ? await client.getStringDetails(key, 'default')
        : type === 'number'
          ? await client.getNumberDetails(key, -1)
          : await client.getObjectDetails(key, { fallback: true });
    expect(details).toMatchObject({ reason: 'ERROR', errorCode: ErrorCode.TYPE_MISMATCH, errorMessage: message });
    expect(details.value).toEqual(type === 'string' ? 'default' : type === 'number' ? -1 : { fallback: true });
  });

  it('an undefined config: the default, FLAG_NOT_FOUND', async () => {
    await expect(client.getStringDetails('no.such.config', 'dflt')).resolves.toMatchObject({
      value: 'dflt',
      errorCode: ErrorCode.FLAG_NOT_FOUND,
      errorMessage: 'config "no.such.config" is not defined',
    });
  });

  it('secrets are not exposed: a secret key reads as not found, and no detail holds its value or the API key', async () => {
    const details = await client.getStringDetails('stripe.api_key', 'none');
    expect(details).toMatchObject({ value: 'none', errorCode: ErrorCode.FLAG_NOT_FOUND });
    const everything = JSON.stringify([
      details,
      await client.getObjectDetails('stripe.api_key', {}),
      await client.getBooleanDetails('stripe.api_key', false),
    ]);
    expect(everything).not.toContain(SECRET_VALUE);
    expect(everything).not.toContain(SECRET_KEY);
  });

  it('the provider prints no key, however it is inspected', () => {
    for (const text of [inspect(provider, { depth: 10, showHidden: true }), JSON.stringify(provider), String(provider)])
      expect(text).not.toContain(SECRET_KEY);
    expect(provider.metadata).toEqual({ name: 'Vane' });
  });
});

describe('A/B flags with a targetingKey', () => {
  it('are evaluated for the user by the service: TARGETING_MATCH', async () => {
    const before = proxy.count('/v1/flags/evaluate-ab');
    await expect(
      client.getBooleanDetails('new-pricing', false, { targetingKey: 'user-1', country: 'DE' }),
    ).resolves.toMatchObject({ value: true, reason: StandardResolutionReasons.TARGETING_MATCH });
    await expect(
      client.getBooleanDetails('new-pricing', true, { targetingKey: 'user-1', country: 'US' }),
    ).resolves.toMatchObject({ value: false, reason: StandardResolutionReasons.TARGETING_MATCH });
    expect(proxy.count('/v1/flags/evaluate-ab')).toBe(before + 2);
  });

  it('without a targetingKey (anonymous) an A/B flag is off and nothing is sent; a flag abFlags does not select reads the cache', async () => {
    const before = proxy.count('/v1/flags/evaluate-ab');
    await expect(client.getBooleanDetails('new-pricing', true, { country: 'DE' })).resolves.toMatchObject({
      value: false,
      reason: 'DISABLED',
    });
    await expect(client.getBooleanDetails('beta', true, { targetingKey: 'user-1' })).resolves.toMatchObject({
      value: false,
      reason: 'DISABLED',
    });
    expect(proxy.count('/v1/flags/evaluate-ab')).toBe(before);
  });

  it.each([
    [{ targetingKey: 'user-1', age: 42 }, 'attribute "age" must be a string, got number'],
    [{ targetingKey: 'user-1', since: new Date(0) }, 'attribute "since" must be a string, got Date'],
    [{ targetingKey: 'user-1', plan: { tier: 'pro' } }, 'attribute "plan" must be a string, got object'],
    [{ targetingKey: 'user-1', beta: true }, 'attribute "beta" must be a string, got boolean'],
    [{ targetingKey: '' }, 'targetingKey must be a non-empty string, got string'],
  ])('a context the service would refuse is INVALID_CONTEXT, before any request (%j)', async (context, message) => {
    const before = proxy.requests.length;
    await expect(client.getBooleanDetails('new-pricing', true, context)).resolves.toMatchObject({
      value: true,
      reason: 'ERROR',
      errorCode: ErrorCode.INVALID_CONTEXT,
      errorMessage: message,
    });
    expect(proxy.requests.length).toBe(before);
  });

  it('null and undefined attributes mean unset and are dropped', async () => {
    await expect(
      client.getBooleanDetails('dark-mode', false, { targetingKey: 'user-2', plan: 'pro', team: null }),
    ).resolves.toMatchObject({ value: true, reason: 'TARGETING_MATCH' });
  });

  it('a failed call: the default, GENERAL, with the Vane error code', async () => {
    server.admin.setTenant({ ab_addon: false });
    try {
      // Turning the add-on off is a new revision (PROTOCOL §7): wait (bounded) until the client has it.
      const revision = server.revision('shop');
      const deadline = Date.now() + 5_000;
      while ((await client.getBooleanDetails('new-checkout', false)).flagMetadata['revision'] !== revision) {
        if (Date.now() > deadline) throw new Error('the client did not get the revision of the add-on turned off');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const details = await client.getBooleanDetails('dark-mode', true, { targetingKey: 'user-3', plan: 'pro' });
      expect(details).toMatchObject({ value: true, reason: 'ERROR', errorCode: ErrorCode.GENERAL });
      expect(details.errorMessage).toMatch(/^A\/B evaluation failed: VANE_ADDON_NOT_AVAILABLE: /);
      expect(details.flagMetadata).toEqual({
        revision: server.revision('shop'),
        vaneErrorCode: 'VANE_ADDON_NOT_AVAILABLE',
      });
      expect(JSON.stringify(details)).not.toContain(SECRET_KEY);
    } finally {
      server.admin.setTenant({ ab_addon: true });
    }
  });
});

describe('lifecycle', () => {
  it('before initialize() and after onClose(), evaluations answer the default with PROVIDER_NOT_READY', async () => {
    const idle = new VaneProvider({ baseUrl: server.baseUrl('shop'), apiKey: SECRET_KEY, logger: silent });
    await expect(idle.resolveBooleanEvaluation('new-checkout', false, {})).resolves.toMatchObject({
      value: false,
      errorCode: ErrorCode.PROVIDER_NOT_READY,
    });
    await idle.initialize();
    await expect(idle.resolveBooleanEvaluation('new-checkout', false, {})).resolves.toMatchObject({ value: true });
    await idle.onClose();
    await expect(idle.resolveStringEvaluation('greeting.text', 'd')).resolves.toMatchObject({
      value: 'd',
      errorCode: ErrorCode.PROVIDER_NOT_READY,
    });
  });

  it('onClose() while initialize() runs: the client it creates is closed at once and initialize() rejects', async () => {
    const racing = new VaneProvider({ baseUrl: server.baseUrl('shop'), apiKey: SECRET_KEY, logger: silent });
    const initializing = racing.initialize();
    await racing.onClose();
    await expect(initializing).rejects.toMatchObject({ code: 'VANE_CLIENT_CLOSED' });
    await expect(racing.resolveBooleanEvaluation('new-checkout', false, {})).resolves.toMatchObject({
      errorCode: ErrorCode.PROVIDER_NOT_READY,
    });
  });

  it('an initial sync that fails rejects initialize() with the client error: OpenFeature reports the provider in error', async () => {
    const wrong = new VaneProvider({
      baseUrl: server.baseUrl('shop'),
      apiKey: 'svs_wrong_key_0000000000',
      logger: silent,
    });
    const error = await OpenFeature.setProviderAndWait('wrong-key', wrong).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'VANE_UNAUTHORIZED' });
    expect((error as Error).message).not.toContain('svs_wrong_key_0000000000');
    expect(OpenFeature.getClient('wrong-key').providerStatus).toBe('ERROR');
  });

  it('a bad abFlags option is refused in the constructor, naming it', () => {
    expect(
      () => new VaneProvider({ baseUrl: server.baseUrl('shop'), apiKey: SECRET_KEY, abFlags: 'some' as 'all' }),
    ).toThrow(expect.objectContaining({ code: 'VANE_INVALID_ARGUMENT', message: expect.stringContaining('abFlags') }));
  });
});
