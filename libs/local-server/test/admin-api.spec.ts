import { startLocalServer, type LocalServer } from '../src/index.js';
import { admin, call, openStream } from './support/http-client.js';
import { KEYS, testSeed } from './support/seed.js';

describe('admin API (/admin/v1)', () => {
  let server: LocalServer;
  beforeEach(async () => {
    server = await startLocalServer({ seed: testSeed(), adminToken: 'admin-token-for-tests' });
  });
  afterEach(() => server.close());

  it('answers 401 without the bearer token, or with a wrong one', async () => {
    for (const token of [false, 'wrong-token'] as const) {
      const answer = await call(server, { method: 'GET', path: '/admin/v1/services', admin: token });
      expect(answer.status).toBe(401);
      expect(answer.json()['error']).toBe('unauthorized');
    }
  });

  it('answers at any host', async () => {
    const answer = await call(server, { path: '/admin/v1/services', host: 'anything.example:1', admin: true });
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({
      services: [
        { slug: 'shop', kind: 'backend', revision: 1 },
        { slug: 'other', kind: 'backend', revision: 1 },
        { slug: 'web', kind: 'frontend', revision: 1 },
      ],
    });
  });

  it('sets and deletes configs, answering the new revision, and refuses object values', async () => {
    expect((await admin(server, 'PUT', '/services/shop/configs/feature.limit', { value: 5 })).json()).toEqual({
      revision: 2,
    });
    expect((await admin(server, 'DELETE', '/services/shop/configs/feature.limit')).json()).toEqual({ revision: 3 });
    const object = await admin(server, 'PUT', '/services/shop/configs/a.b', { value: { nested: true } });
    expect(object.status).toBe(400);
    expect(object.json()['message']).toMatch(/objects are not config values/);
    expect((await admin(server, 'PUT', '/services/shop/configs/a.b', {})).status).toBe(400);
    expect((await admin(server, 'DELETE', '/services/shop/configs/missing')).status).toBe(404);
    expect((await admin(server, 'PUT', '/services/nope/configs/a.b', { value: 1 })).status).toBe(404);
    expect(server.revision('shop')).toBe(3);
  });

  it('sets flags with schedules and A/B rules, validating each member', async () => {
    const ok = await admin(server, 'PUT', '/services/shop/flags/exp', {
      is_enabled: true,
      starts_at: '2020-01-01T00:00:00Z',
      ends_at: null,
      ab: {
        percentage: 10,
        salt: 's',
        cohorts: [{ conditions: [{ attribute: 'plan', op: 'eq', values: ['pro'] }], percentage: 50 }],
      },
    });
    expect(ok.status).toBe(200);
    for (const [body, message] of [
      [{}, /is_enabled/],
      [{ is_enabled: 'yes' }, /is_enabled/],
      [{ is_enabled: true, starts_at: 'tomorrow' }, /starts_at/],
      [{ is_enabled: true, ab: { percentage: 101, salt: 's' } }, /percentage/],
      [
        {
          is_enabled: true,
          ab: {
            percentage: 1,
            salt: 's',
            cohorts: [{ conditions: [{ attribute: 'a', op: 'like', values: [] }], percentage: 1 }],
          },
        },
        /op/,
      ],
    ] as const) {
      const answer = await admin(server, 'PUT', '/services/shop/flags/exp', body);
      expect(answer.status).toBe(400);
      expect(answer.json()['message']).toMatch(message);
    }
    expect((await admin(server, 'DELETE', '/services/shop/flags/exp')).status).toBe(200);
    expect((await admin(server, 'DELETE', '/services/shop/flags/exp')).status).toBe(404);
  });

  it('keeps a service kind when a PUT names none', async () => {
    expect((await admin(server, 'PUT', '/services/web', {})).json()).toEqual({ revision: 1 });
    expect(
      (await admin(server, 'GET', '/services')).json<{ services: Array<{ slug: string; kind: string }> }>().services,
    ).toContainEqual(expect.objectContaining({ slug: 'web', kind: 'frontend' }));
    expect((await admin(server, 'PUT', '/services/fresh')).json()).toEqual({ revision: 1 });
    expect(server.services().find((s) => s.slug === 'fresh')?.kind).toBe('backend');
  });

  it('creates services, issues keys that work, and revokes them', async () => {
    expect((await admin(server, 'PUT', '/services/billing', { kind: 'backend' })).json()).toEqual({ revision: 1 });
    const created = await admin(server, 'POST', '/services/billing/keys', { type: 'secret' });
    expect(created.status).toBe(201);
    const key = created.json<{ key: string }>().key;
    expect(key).toMatch(/^svs_billing_[A-Za-z0-9_-]+$/);
    expect((await call(server, { path: '/v1/sync', slug: 'billing', key })).status).toBe(200);
    expect((await admin(server, 'DELETE', `/services/billing/keys/${key}`)).status).toBe(200);
    expect((await call(server, { path: '/v1/sync', slug: 'billing', key })).status).toBe(401);
    expect((await admin(server, 'POST', '/services/billing/keys', { type: 'admin' })).status).toBe(400);
    expect((await admin(server, 'PUT', '/services/Not_A_Slug', {})).status).toBe(400);
    expect((await admin(server, 'DELETE', `/services/shop/keys/${KEYS.otherSecret}`)).status).toBe(404);
  });

  it('changes the tenant, refusing unknown members and wrong types', async () => {
    const answer = await admin(server, 'PUT', '/tenant', { overdue_days: 3, ab_addon: false });
    expect(answer.json()).toEqual({
      tenant: { overdue_days: 3, ab_addon: false, quarantined_until: null, write_rate_per_minute: 60 },
    });
    expect((await admin(server, 'PUT', '/tenant', { overdue: 3 })).status).toBe(400);
    expect((await admin(server, 'PUT', '/tenant', { overdue_days: -1 })).status).toBe(400);
    expect((await admin(server, 'GET', '/tenant')).json()).toEqual(answer.json());
  });

  it('sets and deletes secrets and versions like the service routes, answering the revision', async () => {
    const set = await admin(server, 'PUT', '/services/shop/secrets/stripe.api_key', { value: 'rk_2' });
    expect(set.json()).toEqual({ revision: 2, key: 'stripe.api_key', type: 'text', version: 2 });
    expect((await admin(server, 'DELETE', '/services/shop/secrets/stripe.api_key/versions/1')).json()).toEqual({
      revision: 3,
    });
    expect((await admin(server, 'DELETE', '/services/shop/secrets/stripe.api_key')).json()).toEqual({ revision: 4 });
  });

  it('reaches an open stream as a patch before the admin call answers', async () => {
    const reader = await openStream(server, { slug: 'shop', key: KEYS.shopPublic });
    await reader.event(1);
    const answer = await admin(server, 'PUT', '/services/shop/configs/db.host', { value: 'db2' });
    expect(answer.status).toBe(200);
    const patch = await reader.event(2);
    expect(JSON.parse(patch.data)).toEqual({
      base: 1,
      revision: 2,
      configs: { 'db.host': 'db2' },
      committed_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    reader.close();
  });
});
