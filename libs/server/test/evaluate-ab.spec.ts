import { createHash } from 'node:crypto';
import { startVaneServer, type VaneServer } from '../src/index.js';
import { admin, call, openStream, type StreamReader } from './support/http-client.js';
import { TEST_KEYS, testSeed } from '../src/testing/index.js';

/** Every patch carries the service's commit time (PROTOCOL §6), RFC 3339 with milliseconds. */
const COMMITTED_AT = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/) as unknown;

// Written out independently of the server's code: PROTOCOL §7.
const bucketOf = (flagKey: string, salt: string, userId: string) =>
  parseInt(createHash('sha256').update(`${flagKey}.${salt}.${userId}`).digest('hex').slice(0, 8), 16) % 10000;

describe('POST /v1/flags/evaluate-ab', () => {
  let server: VaneServer;
  const evaluate = (body: unknown, key: string = TEST_KEYS.shopSecret) =>
    call(server, { method: 'POST', path: '/v1/flags/evaluate-ab', slug: 'shop', key, body });

  beforeEach(async () => {
    server = await startVaneServer({ seed: testSeed() });
  });
  afterEach(() => server.close());

  it('answers results for every requested key; unknown keys are false; no rule means is_active', async () => {
    const answer = await evaluate({ keys: ['new-checkout', 'beta', 'unknown'], user_id: 'u-1', attributes: {} });
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({ results: { 'new-checkout': true, beta: false, unknown: false } });
  });

  it('works with a public key too (flags are public)', async () => {
    expect((await evaluate({ keys: ['new-checkout'], user_id: 'u-1' }, TEST_KEYS.shopPublic)).status).toBe(200);
  });

  it('lets the first matching cohort decide, else the rollout percentage', async () => {
    // new-pricing: rollout 0 %, cohort country in [DE, FR] at 100 %
    const de = await evaluate({ keys: ['new-pricing'], user_id: 'u-1', attributes: { country: 'DE' } });
    const us = await evaluate({ keys: ['new-pricing'], user_id: 'u-1', attributes: { country: 'US' } });
    const none = await evaluate({ keys: ['new-pricing'], user_id: 'u-1' });
    expect(de.json()).toEqual({ results: { 'new-pricing': true } });
    expect(us.json()).toEqual({ results: { 'new-pricing': false } });
    expect(none.json()).toEqual({ results: { 'new-pricing': false } });
  });

  it('buckets users exactly per PROTOCOL §7', async () => {
    server.admin.setFlag('shop', 'rollout', { is_enabled: true, ab: { percentage: 37.5, salt: 'r-1', cohorts: [] } });
    const users = Array.from({ length: 200 }, (_, i) => `user-${i}`);
    for (const user of users) {
      const answer = await evaluate({ keys: ['rollout'], user_id: user });
      expect(answer.json()).toEqual({ results: { rollout: bucketOf('rollout', 'r-1', user) < 3750 } });
    }
  });

  it('answers false for a flag that is not active, whatever its rule', async () => {
    server.admin.setFlag('shop', 'off', { is_enabled: false, ab: { percentage: 100, salt: 's', cohorts: [] } });
    expect((await evaluate({ keys: ['off'], user_id: 'u' })).json()).toEqual({ results: { off: false } });
  });

  it.each([
    ['no keys', { keys: [], user_id: 'u' }, /keys/],
    ['201 keys', { keys: Array.from({ length: 201 }, (_, i) => `k${i}`), user_id: 'u' }, /keys/],
    ['a key that is not a string', { keys: [1], user_id: 'u' }, /keys\[0\].*number/],
    ['no user id', { keys: ['beta'] }, /user_id/],
    ['a number attribute', { keys: ['beta'], user_id: 'u', attributes: { age: 42 } }, /attributes\.age.*number/],
    ['a null attribute', { keys: ['beta'], user_id: 'u', attributes: { plan: null } }, /attributes\.plan.*null/],
    ['attributes that are an array', { keys: ['beta'], user_id: 'u', attributes: ['x'] }, /attributes/],
    ['a body that is not an object', 'true', /object/],
    ['malformed JSON', '{"keys": [', /JSON/],
  ])('answers 400 invalid_request for %s', async (_name, body, message) => {
    const answer = await evaluate(body);
    expect(answer.status).toBe(400);
    expect(answer.json()).toEqual({ error: 'invalid_request', message: expect.stringMatching(message) });
  });

  it('accepts exactly 200 keys', async () => {
    const keys = Array.from({ length: 200 }, (_, i) => `k${i}`);
    const answer = await evaluate({ keys, user_id: 'u' });
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.json<{ results: object }>().results)).toHaveLength(200);
  });

  it('answers 403 addon_inactive while the add-on is off, and 402 while billing is overdue', async () => {
    server.admin.setTenant({ ab_addon: false });
    const off = await evaluate({ keys: ['beta'], user_id: 'u' });
    expect(off.status).toBe(403);
    expect(off.json()['error']).toBe('addon_inactive');
    server.admin.setTenant({ ab_addon: true, overdue_days: 30 });
    expect((await evaluate({ keys: ['beta'], user_id: 'u' })).status).toBe(402);
  });
});

describe('an answer changes only with a new revision (PROTOCOL §7)', () => {
  let server: VaneServer;
  const readers: StreamReader[] = [];
  const evaluate = (body: unknown) =>
    call(server, { method: 'POST', path: '/v1/flags/evaluate-ab', slug: 'shop', key: TEST_KEYS.shopSecret, body });
  const stream = async (slug: string, key: string): Promise<StreamReader> => {
    const reader = await openStream(server, { slug, key });
    readers.push(reader);
    await reader.event(1); // the opening resync
    return reader;
  };
  const patchOf = async (reader: StreamReader, n: number) => JSON.parse((await reader.event(n)).data) as unknown;
  const GERMAN = { keys: ['new-pricing'], user_id: 'u-1', attributes: { country: 'DE' } };
  const PUBLIC_RECORD = { is_enabled: true, starts_at: null, ends_at: null, is_active: true };

  beforeEach(async () => {
    server = await startVaneServer({ seed: testSeed() });
  });
  afterEach(async () => {
    readers.splice(0).forEach((r) => r.close());
    await server.close();
  });

  it('a change of the A/B rule alone, through the admin API: a new revision and a patch with the flag', async () => {
    const reader = await stream('shop', TEST_KEYS.shopSecret);
    expect((await evaluate(GERMAN)).json()).toEqual({ results: { 'new-pricing': true } });
    const before = server.revision('shop');
    // Same is_enabled, starts_at and ends_at: only the rule differs (cohort now FR only).
    const put = await admin(server, 'PUT', '/services/shop/flags/new-pricing', {
      is_enabled: true,
      starts_at: null,
      ends_at: null,
      ab: {
        percentage: 0,
        salt: 'np-1',
        cohorts: [{ conditions: [{ attribute: 'country', op: 'in', values: ['FR'] }], percentage: 100 }],
      },
    });
    expect(put.json()).toEqual({ revision: before + 1 });
    expect(await patchOf(reader, 2)).toEqual({
      base: before,
      revision: before + 1,
      flags: { 'new-pricing': PUBLIC_RECORD },
      committed_at: COMMITTED_AT,
    });
    expect((await evaluate(GERMAN)).json()).toEqual({ results: { 'new-pricing': false } });
  }, 15_000);

  it('turning the A/B add-on off and on: a new revision of every service with flags, a patch with every flag', async () => {
    const shop = await stream('shop', TEST_KEYS.shopSecret);
    const web = await stream('web', TEST_KEYS.webPublic);
    const before = { shop: server.revision('shop'), web: server.revision('web'), other: server.revision('other') };
    const shopFlags = {
      'new-checkout': PUBLIC_RECORD,
      beta: { ...PUBLIC_RECORD, is_enabled: false, is_active: false },
      'new-pricing': PUBLIC_RECORD,
    };

    expect((await admin(server, 'PUT', '/tenant', { ab_addon: false })).status).toBe(200);
    expect(await patchOf(shop, 2)).toEqual({
      base: before.shop,
      revision: before.shop + 1,
      flags: shopFlags,
      committed_at: COMMITTED_AT,
    });
    expect(await patchOf(web, 2)).toEqual({
      base: before.web,
      revision: before.web + 1,
      flags: { 'dark-mode': PUBLIC_RECORD },
      committed_at: COMMITTED_AT,
    });
    expect((await evaluate(GERMAN)).status).toBe(403);

    expect((await admin(server, 'PUT', '/tenant', { ab_addon: true })).status).toBe(200);
    expect(await patchOf(shop, 3)).toEqual({
      base: before.shop + 1,
      revision: before.shop + 2,
      flags: shopFlags,
      committed_at: COMMITTED_AT,
    });
    expect((await evaluate(GERMAN)).json()).toEqual({ results: { 'new-pricing': true } });
    // A service without flags has no answer to change.
    expect(server.revision('other')).toBe(before.other);
  }, 15_000);

  it('a tenant change that cannot change an answer moves no revision', async () => {
    const before = server.revision('shop');
    server.admin.setTenant({ ab_addon: true, write_rate_per_minute: 30 });
    expect(server.revision('shop')).toBe(before);
  });
});

describe('tenant states', () => {
  let server: VaneServer;
  beforeEach(async () => {
    server = await startVaneServer({ seed: testSeed() });
  });
  afterEach(() => server.close());

  it('answers 429 quarantined with until and Retry-After on every /v1 route while quarantined', async () => {
    const until = new Date(Date.now() + 90_000).toISOString();
    server.admin.setTenant({ quarantined_until: until });
    for (const [method, path, body] of [
      ['GET', '/v1/sync', undefined],
      ['POST', '/v1/flags/evaluate-ab', { keys: ['beta'], user_id: 'u' }],
      ['PUT', '/v1/secrets/a', { value: 'x' }],
    ] as const) {
      const answer = await call(server, { method, path, slug: 'shop', key: TEST_KEYS.shopSecret, body });
      expect(answer.status).toBe(429);
      expect(answer.json()).toEqual({ error: 'quarantined', message: expect.any(String), until: expect.any(String) });
      expect(Date.parse(answer.json<{ until: string }>().until)).toBe(Date.parse(until));
      expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    }
    server.admin.setTenant({ quarantined_until: null });
    expect((await call(server, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret })).status).toBe(200);
  });

  it('ignores a quarantine that has already ended', async () => {
    server.admin.setTenant({ quarantined_until: new Date(Date.now() - 1000).toISOString() });
    expect((await call(server, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret })).status).toBe(200);
  });

  it('answers 402 on sync past 14 overdue days, but still 401 to a bad key', async () => {
    server.admin.setTenant({ overdue_days: 15 });
    const answer = await call(server, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret });
    expect(answer.status).toBe(402);
    expect(answer.json()['error']).toBe('billing_overdue');
    expect((await call(server, { path: '/v1/sync', slug: 'shop', key: 'svs_bad' })).status).toBe(401);
  });
});
