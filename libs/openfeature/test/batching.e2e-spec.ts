import { OpenFeature, type Client } from '@openfeature/server-sdk';
import { startVaneServer, type VaneServer } from '@vane/server';
import { VaneProvider } from '../src/index.js';
import { SECRET_KEY, testSeed } from './support/seed.js';
import { FaultProxy } from '@vane/test-harness';

const EVALUATE_AB = '/v1/flags/evaluate-ab';
/** More flags than one evaluate-ab call may carry. */
const MANY = 250;

let server: VaneServer;
let proxy: FaultProxy;
let client: Client;

beforeAll(async () => {
  const seed = testSeed();
  for (let i = 0; i < MANY; i++) {
    seed.services!['shop']!.flags![`exp-${i}`] = {
      is_enabled: true,
      ab: { percentage: 100, salt: `s${i}`, cohorts: [] },
    };
  }
  server = await startVaneServer({ seed, port: 0 });
  proxy = await FaultProxy.start(server.port);
  await OpenFeature.setProviderAndWait(
    new VaneProvider({
      baseUrl: proxy.baseUrl('shop'),
      apiKey: SECRET_KEY,
      stream: false,
      logger: { warn: () => undefined, error: () => undefined },
      abFlags: 'all',
    }),
  );
  client = OpenFeature.getClient();
});

afterAll(async () => {
  await OpenFeature.close();
  await proxy.close();
  await server.close();
});

/** evaluate-ab calls made while `body` runs. */
async function callsDuring(body: () => Promise<unknown>): Promise<number> {
  const before = proxy.count(EVALUATE_AB);
  await body();
  return proxy.count(EVALUATE_AB) - before;
}

it('evaluations for the same context in the same turn go out in one call', async () => {
  const context = { targetingKey: 'user-7', country: 'FR', plan: 'pro' };
  let values: boolean[] = [];
  const calls = await callsDuring(async () => {
    values = await Promise.all([
      client.getBooleanValue('new-pricing', false, context),
      client.getBooleanValue('dark-mode', false, context),
      client.getBooleanValue('new-checkout', false, context),
      client.getBooleanValue('beta', true, context),
      client.getBooleanValue('dark-mode', false, { plan: 'pro', country: 'FR', targetingKey: 'user-7' }),
    ]);
  });
  expect(calls).toBe(1);
  expect(values).toEqual([true, true, true, false, true]);
});

it('different contexts in the same turn: one call each', async () => {
  let values: boolean[] = [];
  const calls = await callsDuring(async () => {
    values = await Promise.all([
      client.getBooleanValue('new-pricing', true, { targetingKey: 'user-1', country: 'US' }),
      client.getBooleanValue('dark-mode', true, { targetingKey: 'user-1', country: 'US' }),
      client.getBooleanValue('new-pricing', false, { targetingKey: 'user-2', country: 'DE' }),
      client.getBooleanValue('new-pricing', false, { targetingKey: 'user-1', country: 'DE' }),
    ]);
  });
  expect(calls).toBe(3);
  expect(values).toEqual([false, false, true, true]);
});

it('evaluations in different turns: one call each', async () => {
  const calls = await callsDuring(async () => {
    await client.getBooleanValue('new-pricing', false, { targetingKey: 'user-3', country: 'DE' });
    await client.getBooleanValue('dark-mode', false, { targetingKey: 'user-3', country: 'DE' });
  });
  expect(calls).toBe(2);
});

it("a returning context in a later turn is answered by the client's cache of A/B answers: no call", async () => {
  const context = { targetingKey: 'user-5', country: 'DE' };
  expect(await callsDuring(() => client.getBooleanValue('new-pricing', false, context))).toBe(1);
  const again = await callsDuring(async () => {
    expect(await client.getBooleanValue('new-pricing', false, { country: 'DE', targetingKey: 'user-5' })).toBe(true);
  });
  expect(again).toBe(0);
});

it(`${MANY} flags for one context: calls of at most 200 keys`, async () => {
  const keys = Array.from({ length: MANY }, (_, i) => `exp-${i}`);
  let values: boolean[] = [];
  const calls = await callsDuring(async () => {
    values = await Promise.all(keys.map((key) => client.getBooleanValue(key, false, { targetingKey: 'user-4' })));
  });
  expect(calls).toBe(2);
  expect(values.every((v) => v)).toBe(true);
});

it('undefined flags and refused contexts never reach the batch', async () => {
  const calls = await callsDuring(async () => {
    const details = await Promise.all([
      client.getBooleanDetails('no-such-flag', true, { targetingKey: 'user-5' }),
      client.getBooleanDetails('new-pricing', true, { targetingKey: 'user-5', age: 30 }),
    ]);
    expect(details.map((d) => d.errorCode)).toEqual(['FLAG_NOT_FOUND', 'INVALID_CONTEXT']);
  });
  expect(calls).toBe(0);
});
