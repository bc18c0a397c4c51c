import { startVaneServer, type VaneServer } from '@vane/server';
import { adminRequest, waitForRevision, waitForStatus } from '@vane/server/testing';
import { FaultProxy } from '@vane/test-harness';
import { VaneClient, type AbContext, type VaneClientOptions } from '../src/index.js';
import { MemoryLogger } from './helpers/fake-transport.js';
import { ManualTimers } from './helpers/manual-timers.js';
import { SHOP_SK, seed } from './helpers/seed.js';

/**
 * The cache of A/B answers against the local server, behind a proxy that
 * counts the `evaluate-ab` calls that reach it. The stream is on, so the
 * client learns of every new revision as the service publishes it; the
 * client's clock is a hand-driven one, so answers age only when told.
 */
let server: VaneServer;
let proxy: FaultProxy;
let clock: ManualTimers;
let logger: MemoryLogger;
const clients: VaneClient[] = [];

beforeEach(async () => {
  server = await startVaneServer({ seed: seed(), port: 0 });
  proxy = await FaultProxy.start(server.port);
  clock = new ManualTimers();
  logger = new MemoryLogger();
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await proxy.close();
  await server.close();
});

async function connect(options: Partial<VaneClientOptions> = {}): Promise<VaneClient> {
  const client = await VaneClient.create({
    baseUrl: proxy.baseUrl('shop'),
    apiKey: SHOP_SK,
    logger,
    clock,
    ...options,
  });
  clients.push(client);
  await waitForStatus(client, (s) => s.connected, { what: 'stream connected', timeoutMs: 5000 });
  return client;
}

const calls = (): number => proxy.count('/v1/flags/evaluate-ab');
const GERMAN: AbContext = { userId: 'u-8812', attributes: { country: 'DE', plan: 'pro' } };
/** new-checkout for everyone in DE, else for no one. */
const GERMANY_ONLY = {
  is_enabled: true,
  starts_at: null,
  ends_at: null,
  ab: {
    percentage: 0,
    salt: 'nc-2',
    cohorts: [{ conditions: [{ attribute: 'country', op: 'eq', values: ['DE'] }], percentage: 100 }],
  },
};

/** A change through the admin API, once the client has the revision it made. */
async function changed(client: VaneClient, method: 'PUT', path: string, body: unknown): Promise<void> {
  const before = server.revision('shop');
  await adminRequest(server, method, path, body);
  expect(server.revision('shop')).toBe(before + 1);
  await waitForRevision(client, before + 1);
}

describe('the cache of A/B answers', () => {
  it('a returning user costs no call', async () => {
    const client = await connect();
    expect({ ...(await client.evaluateAb(['always-on', 'dark-mode'], GERMAN)) }).toEqual({
      'always-on': true,
      'dark-mode': false,
    });
    expect({ ...(await client.evaluateAb(['dark-mode', 'always-on'], GERMAN)) }).toEqual({
      'dark-mode': false,
      'always-on': true,
    });
    expect({ ...(await client.evaluateAb(['always-on'], GERMAN)) }).toEqual({ 'always-on': true });
    expect(calls()).toBe(1);
    expect(client.abCacheStats).toMatchObject({ enabled: true, hits: 3, misses: 2, size: 2 });
  });

  it('evaluateAbCached: a returning user answered synchronously, with no call; otherwise undefined, nothing counted', async () => {
    const client = await connect();
    expect(client.evaluateAbCached(['always-on'], GERMAN)).toBeUndefined();
    expect(client.abCacheStats).toMatchObject({ hits: 0, misses: 0 });
    await client.evaluateAb(['always-on', 'dark-mode'], GERMAN);
    const reordered = { userId: GERMAN.userId, attributes: { plan: 'pro', country: 'DE', seats: null } };
    expect({ ...client.evaluateAbCached(['dark-mode', 'always-on', 'nope', 'dark-mode'], reordered) }).toEqual({
      'dark-mode': false,
      'always-on': true,
      nope: false, // not defined: never sent, false
    });
    // One key without an answer (another user, another flag): nothing from the cache.
    expect(client.evaluateAbCached(['always-on'], { userId: 'u-2', attributes: GERMAN.attributes })).toBeUndefined();
    expect(client.evaluateAbCached(['always-on', 'new-checkout'], GERMAN)).toBeUndefined();
    expect(calls()).toBe(1);
    expect(client.abCacheStats).toMatchObject({ hits: 2, misses: 2 });
    // What evaluateAb refuses, thrown at once.
    expect(() => client.evaluateAbCached(['always-on'], { userId: '' })).toThrow(
      expect.objectContaining({ code: 'VANE_INVALID_ARGUMENT' }),
    );
    // A new revision makes every answer unusable at once.
    await changed(client, 'PUT', 'services/shop/flags/new-checkout', GERMANY_ONLY);
    expect(client.evaluateAbCached(['always-on'], GERMAN)).toBeUndefined();
    await client.close();
    expect(client.evaluateAbCached(['always-on'], GERMAN)).toBeUndefined();
    const off = await connect({ abCache: false });
    await off.evaluateAb(['always-on'], GERMAN);
    expect(off.evaluateAbCached(['always-on'], GERMAN)).toBeUndefined();
  });

  it('a change of the A/B rule alone, through the admin API: the next request asks again and gets the new answer', async () => {
    const client = await connect();
    await changed(client, 'PUT', 'services/shop/flags/new-checkout', GERMANY_ONLY);
    const american = { userId: 'u-1', attributes: { country: 'US' } };
    expect({ ...(await client.evaluateAb(['new-checkout'], american)) }).toEqual({ 'new-checkout': false });
    expect({ ...(await client.evaluateAb(['new-checkout'], american)) }).toEqual({ 'new-checkout': false });
    expect(calls()).toBe(1);
    // The same public record (is_enabled, starts_at, ends_at), another rule: everyone in.
    await changed(client, 'PUT', 'services/shop/flags/new-checkout', {
      ...GERMANY_ONLY,
      ab: { percentage: 100, salt: 'nc-2', cohorts: [] },
    });
    expect(client.flag('new-checkout')).toBe(true);
    expect({ ...(await client.evaluateAb(['new-checkout'], american)) }).toEqual({ 'new-checkout': true });
    expect(calls()).toBe(2);
    expect(client.abCacheStats.invalidations).toBe(1);
  });

  it('tells attribute values apart, not the order in which attributes are written', async () => {
    const client = await connect();
    await changed(client, 'PUT', 'services/shop/flags/new-checkout', GERMANY_ONLY);
    const ask = (attributes: Record<string, string | null>) =>
      client.evaluateAb(['new-checkout'], { userId: 'u-5', attributes }).then((r) => r['new-checkout']);
    expect(await ask({ country: 'DE', plan: 'pro' })).toBe(true);
    expect(await ask({ plan: 'pro', country: 'DE' })).toBe(true);
    expect(await ask({ plan: 'pro', country: 'DE', seats: null })).toBe(true); // null means unset
    expect(calls()).toBe(1);
    expect(await ask({ country: 'FR', plan: 'pro' })).toBe(false);
    expect(await ask({ country: 'DE', plan: 'free' })).toBe(true);
    expect(calls()).toBe(3);
  });

  it('never caches an error: the add-on off answers 403 to every request, and the answer comes back when it is on', async () => {
    const client = await connect();
    expect((await client.evaluateAb(['always-on'], GERMAN))['always-on']).toBe(true);
    const before = client.revision;
    await adminRequest(server, 'PUT', 'tenant', { ab_addon: false });
    await waitForRevision(client, before + 1);
    for (let i = 0; i < 2; i++) {
      await expect(client.evaluateAb(['always-on'], GERMAN)).rejects.toMatchObject({
        code: 'VANE_ADDON_NOT_AVAILABLE',
      });
    }
    expect(calls()).toBe(3);
    await adminRequest(server, 'PUT', 'tenant', { ab_addon: true });
    await waitForRevision(client, before + 2);
    expect((await client.evaluateAb(['always-on'], GERMAN))['always-on']).toBe(true);
    expect((await client.evaluateAb(['always-on'], GERMAN))['always-on']).toBe(true);
    expect(calls()).toBe(4);
  });

  it('never caches a transport error, even at the same revision', async () => {
    const client = await connect();
    proxy.onRequest((line) => (line.includes('/v1/flags/evaluate-ab') ? 'reset' : undefined));
    await expect(client.evaluateAb(['always-on'], GERMAN)).rejects.toMatchObject({ code: 'VANE_TRANSPORT' });
    proxy.onRequest(undefined);
    expect((await client.evaluateAb(['always-on'], GERMAN))['always-on']).toBe(true);
    expect(calls()).toBe(2);
    expect(client.abCacheStats).toMatchObject({ hits: 0, misses: 2, size: 1 });
  });

  it('asks again once an answer is maxAgeMs old, on the client clock, revision or not', async () => {
    const client = await connect({ abCache: { maxAgeMs: 10_000 } });
    await client.evaluateAb(['always-on'], GERMAN);
    await clock.advance(9_999);
    await client.evaluateAb(['always-on'], GERMAN);
    expect(calls()).toBe(1);
    await clock.advance(1);
    await client.evaluateAb(['always-on'], GERMAN);
    expect(calls()).toBe(2);
    expect(client.abCacheStats).toMatchObject({ expirations: 1, size: 1 });
  });

  it.each([
    ['maxEntries', { maxEntries: 2 }],
    // Two answers of these users fit, three do not: 360 bytes + 2 per character of the flag key and the
    // user id (the documented estimate).
    ['maxBytes', { maxBytes: 2 * (360 + 2 * 'always-onuser-1'.length) }],
  ])('keeps within %s, dropping the least recently used', async (_name, abCache) => {
    const client = await connect({ abCache });
    const ask = (userId: string) => client.evaluateAb(['always-on'], { userId });
    await ask('user-1');
    await ask('user-2');
    await ask('user-1'); // user-1 is now the most recently used
    await ask('user-3'); // user-2 goes
    expect(calls()).toBe(3);
    await ask('user-1');
    await ask('user-3');
    expect(calls()).toBe(3);
    await ask('user-2');
    expect(calls()).toBe(4);
    expect(client.abCacheStats).toMatchObject({ size: 2, evictions: 2 });
  });

  it('100 concurrent first requests of one user make one call', async () => {
    const client = await connect();
    const answers = await Promise.all(
      Array.from({ length: 100 }, () => client.evaluateAb(['always-on', 'new-checkout'], GERMAN)),
    );
    expect(new Set(answers.map((a) => JSON.stringify({ ...a }))).size).toBe(1);
    expect(answers[0]!['always-on']).toBe(true);
    expect(calls()).toBe(1);
    expect(client.abCacheStats).toMatchObject({ misses: 2, coalesced: 198, hits: 0 });
  });

  it('turned off (abCache: false): one call per request, concurrent ones included', async () => {
    const client = await connect({ abCache: false });
    await client.evaluateAb(['always-on'], GERMAN);
    await client.evaluateAb(['always-on'], GERMAN);
    await Promise.all(Array.from({ length: 30 }, () => client.evaluateAb(['always-on'], GERMAN)));
    expect(calls()).toBe(32);
    expect(client.abCacheStats).toMatchObject({ enabled: false, hits: 0, misses: 0, size: 0 });
  });
});
