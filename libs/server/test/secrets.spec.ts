import { ManualClock, startVaneServer, type VaneServer } from '../src/index.js';
import { admin, call, type Answer } from './support/http-client.js';
import { TEST_KEYS, testSeed } from '../src/testing/index.js';

describe('secret writes (/v1/secrets) and version history', () => {
  let clock: ManualClock;
  let server: VaneServer;
  const write = (
    method: 'PUT' | 'DELETE',
    path: string,
    body?: unknown,
    key: string = TEST_KEYS.shopSecret,
  ): Promise<Answer> => call(server, { method, path: `/v1/secrets/${path}`, slug: 'shop', key, body });
  const secretsOf = async () =>
    (await call(server, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret })).json<{
      secrets: Record<string, { type: string; value: string; version: number }>;
    }>().secrets;

  beforeEach(async () => {
    clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
    server = await startVaneServer({ seed: testSeed(), clock });
  });
  afterEach(() => server.close());

  it('sets a text secret by default and answers key, type and version', async () => {
    const answer = await write('PUT', 'db.password', { value: 's3cret' });
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({ key: 'db.password', type: 'text', version: 1 });
    expect((await secretsOf())['db.password']).toEqual({ type: 'text', value: 's3cret', version: 1 });
  });

  it('sets a file secret and percent-decodes the key', async () => {
    const answer = await write('PUT', encodeURIComponent('tls.ca-bundle'), { value: 'PEM', type: 'file' });
    expect(answer.json()).toEqual({ key: 'tls.ca-bundle', type: 'file', version: 1 });
  });

  it('never reuses a version, even after deletions, and serves the highest remaining one', async () => {
    // stripe.api_key is at version 1 from the seed
    expect((await write('PUT', 'stripe.api_key', { value: 'v2' })).json()['version']).toBe(2);
    expect((await write('PUT', 'stripe.api_key', { value: 'v3' })).json()['version']).toBe(3);
    expect((await write('DELETE', 'stripe.api_key/versions/3')).status).toBe(204);
    expect((await secretsOf())['stripe.api_key']).toEqual({ type: 'text', value: 'v2', version: 2 });
    expect((await write('PUT', 'stripe.api_key', { value: 'v4' })).json()['version']).toBe(4);
    expect((await write('DELETE', 'stripe.api_key')).status).toBe(204);
    expect(await secretsOf()).not.toHaveProperty(['stripe.api_key']);
    expect((await write('PUT', 'stripe.api_key', { value: 'again' })).json()['version']).toBe(5);
  });

  it('is idempotent: the value and type the current version holds make no new version, revision or audit entry', async () => {
    // A PUT passed on again (nginx retries an idempotent method on the next replica) must not make a second version.
    expect((await write('PUT', 'stripe.api_key', { value: 'v2' })).json()).toEqual({
      key: 'stripe.api_key',
      type: 'text',
      version: 2,
    });
    const revision = server.revision('shop');
    const audit = (await admin(server, 'GET', '/audit')).json<{ entries: unknown[] }>().entries.length;
    const again = await write('PUT', 'stripe.api_key', { value: 'v2' });
    expect(again.status).toBe(200);
    expect(again.json()).toEqual({ key: 'stripe.api_key', type: 'text', version: 2 });
    expect(server.revision('shop')).toBe(revision);
    expect((await admin(server, 'GET', '/audit')).json<{ entries: unknown[] }>().entries).toHaveLength(audit);
    // Another type, or another value, is a new version.
    expect((await write('PUT', 'stripe.api_key', { value: 'v2', type: 'file' })).json()['version']).toBe(3);
    expect((await write('PUT', 'stripe.api_key', { value: 'v4', type: 'file' })).json()['version']).toBe(4);
  });

  it('deletes the secret when its only remaining version is deleted', async () => {
    await write('DELETE', 'tls.client_pem/versions/1');
    expect((await secretsOf())['tls.client_pem']).toMatchObject({ value: 'pem-v2', version: 2 });
    await write('DELETE', 'tls.client_pem/versions/2');
    expect(await secretsOf()).not.toHaveProperty(['tls.client_pem']);
  });

  it('answers 404 for an unknown secret or version and 400 for a version that is not a positive integer', async () => {
    expect((await write('DELETE', 'nope')).status).toBe(404);
    expect((await write('DELETE', 'nope/versions/1')).status).toBe(404);
    expect((await write('DELETE', 'stripe.api_key/versions/9')).status).toBe(404);
    for (const bad of ['0', '-1', '1.5', 'abc']) {
      const answer = await write('DELETE', `stripe.api_key/versions/${bad}`);
      expect(answer.status).toBe(400);
      expect(answer.json()['error']).toBe('invalid_request');
    }
  });

  it('refuses bad bodies with 400, naming what was wrong, and changes nothing', async () => {
    const before = server.revision('shop');
    const cases: Array<[unknown, RegExp]> = [
      [{}, /value/],
      [{ value: 42 }, /value.*number/],
      [{ value: 'x', type: 'binary' }, /type/],
      [[], /object/],
    ];
    for (const [body, message] of cases) {
      const answer = await write('PUT', 'db.password', body);
      expect(answer.status).toBe(400);
      expect(answer.json()['message']).toMatch(message);
    }
    expect((await write('PUT', 'bad%20key', { value: 'x' })).status).toBe(400);
    expect((await write('PUT', 'db.password', '{"value": ')).status).toBe(400);
    expect(server.revision('shop')).toBe(before);
  });

  it('refuses public keys (401) and frontend services (400), and never echoes the value', async () => {
    const pub = await write('PUT', 'db.password', { value: 'hunter2' }, TEST_KEYS.shopPublic);
    expect(pub.status).toBe(401);
    expect(pub.text).not.toContain('hunter2');
    const web = await call(server, {
      method: 'PUT',
      path: '/v1/secrets/x',
      slug: 'web',
      key: TEST_KEYS.webSecret,
      body: { value: 'hunter2' },
    });
    expect(web.status).toBe(400);
    expect(web.text).not.toContain('hunter2');
  });

  it('keeps an audit trail of every secret change, without values', async () => {
    await write('PUT', 'db.password', { value: 'first-value' });
    await write('PUT', 'db.password', { value: 'second-value' });
    await write('DELETE', 'db.password/versions/1');
    await write('DELETE', 'db.password');
    await admin(server, 'PUT', '/services/shop/secrets/admin.secret', { value: 'admin-value' });
    const answer = await admin(server, 'GET', '/services/shop/audit');
    expect(answer.status).toBe(200);
    const entries = answer.json<{ entries: Array<Record<string, unknown>> }>().entries;
    expect(entries).toEqual([
      { at: '2026-11-22T10:00:00Z', action: 'secret.set', key: 'db.password', version: 1, actor: 'svs_…cret' },
      { at: '2026-11-22T10:00:00Z', action: 'secret.set', key: 'db.password', version: 2, actor: 'svs_…cret' },
      {
        at: '2026-11-22T10:00:00Z',
        action: 'secret.version.delete',
        key: 'db.password',
        version: 1,
        actor: 'svs_…cret',
      },
      { at: '2026-11-22T10:00:00Z', action: 'secret.delete', key: 'db.password', version: null, actor: 'svs_…cret' },
      { at: '2026-11-22T10:00:00Z', action: 'secret.set', key: 'admin.secret', version: 1, actor: 'admin' },
    ]);
    expect(answer.text).not.toMatch(/first-value|second-value|admin-value|svs_shop_test_secret/);
  });

  it('rate-limits writes per key with 429 rate_limited and Retry-After, then lets them through again', async () => {
    server.admin.setTenant({ write_rate_per_minute: 3 });
    for (let i = 0; i < 3; i++) expect((await write('PUT', 'db.password', { value: `v${i}` })).status).toBe(200);
    const limited = await write('PUT', 'db.password', { value: 'v4' });
    expect(limited.status).toBe(429);
    expect(limited.json()['error']).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBe(20);
    // another key has its own budget
    const otherKey = server.admin.createKey('shop', 'secret');
    expect((await write('PUT', 'db.password', { value: 'v5' }, otherKey)).status).toBe(200);
    clock.advance(20_000);
    expect((await write('PUT', 'db.password', { value: 'v6' })).status).toBe(200);
  });

  it('answers 402 to writes while the tenant is overdue by more than 14 days', async () => {
    server.admin.setTenant({ overdue_days: 14 });
    expect((await write('PUT', 'db.password', { value: 'x' })).status).toBe(200);
    server.admin.setTenant({ overdue_days: 15 });
    const answer = await write('PUT', 'db.password', { value: 'x' });
    expect(answer.status).toBe(402);
    expect(answer.json()['error']).toBe('billing_overdue');
  });
});
