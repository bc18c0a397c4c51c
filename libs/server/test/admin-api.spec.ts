import { startVaneServer, type VaneServer } from '../src/index.js';
import { admin, call, openStream } from './support/http-client.js';
import { TEST_KEYS, testSeed } from '../src/testing/index.js';

describe('admin API (/admin/v1)', () => {
  let server: VaneServer;
  beforeEach(async () => {
    server = await startVaneServer({ seed: testSeed(), adminToken: 'admin-token-for-tests' });
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
        { slug: 'shop', project: 'default', kind: 'backend', revision: 1 },
        { slug: 'other', project: 'default', kind: 'backend', revision: 1 },
        { slug: 'web', project: 'default', kind: 'frontend', revision: 1 },
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

  describe('PATCH /services/{slug}/flags/{key}', () => {
    const NEW_PRICING_AB = {
      percentage: 0,
      salt: 'np-1',
      cohorts: [{ conditions: [{ attribute: 'country', op: 'in', values: ['DE', 'FR'] }], percentage: 100 }],
    };
    const flagOf = async (key: string): Promise<Record<string, unknown>> =>
      (await call(server, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret })).json<{
        flags: Record<string, Record<string, unknown>>;
      }>().flags[key]!;
    const evaluate = async (country: string): Promise<boolean> =>
      (
        await call(server, {
          method: 'POST',
          path: '/v1/flags/evaluate-ab',
          slug: 'shop',
          key: TEST_KEYS.shopSecret,
          body: { keys: ['new-pricing'], user_id: 'u-1', attributes: { country } },
        })
      ).json<{ results: Record<string, boolean> }>().results['new-pricing']!;

    it('changes only the members it names: a switch keeps the A/B rule and the schedule', async () => {
      server.admin.patchFlag('shop', 'new-pricing', { ends_at: '2099-01-01T00:00:00Z' });
      const revision = server.revision('shop');
      const off = await admin(server, 'PATCH', '/services/shop/flags/new-pricing', { is_enabled: false });
      expect([off.status, off.json()]).toEqual([200, { revision: revision + 1 }]);
      expect(await flagOf('new-pricing')).toEqual({
        is_enabled: false,
        starts_at: null,
        ends_at: '2099-01-01T00:00:00Z',
        is_active: false,
      });
      expect(await evaluate('DE')).toBe(false);

      await admin(server, 'PATCH', '/services/shop/flags/new-pricing', { is_enabled: true });
      expect(await evaluate('DE')).toBe(true); // the rule survived both switches
      expect(await evaluate('US')).toBe(false);
      expect(server.revision('shop')).toBe(revision + 2);
    });

    it('sets and removes the rule (`"ab": null`) and each end of the schedule', async () => {
      const rule = { percentage: 100, salt: 's2', cohorts: [] };
      expect((await admin(server, 'PATCH', '/services/shop/flags/new-pricing', { ab: rule })).status).toBe(200);
      expect(await evaluate('US')).toBe(true);
      expect((await admin(server, 'PATCH', '/services/shop/flags/new-pricing', { ab: null })).status).toBe(200);
      expect(await evaluate('US')).toBe(true); // no rule: is_active decides

      await admin(server, 'PATCH', '/services/shop/flags/new-pricing', {
        starts_at: '2099-01-01T01:00:00+01:00',
        ends_at: '2099-02-01T00:00:00Z',
      });
      expect(await flagOf('new-pricing')).toMatchObject({ starts_at: '2099-01-01T00:00:00Z', is_active: false });
      await admin(server, 'PATCH', '/services/shop/flags/new-pricing', { starts_at: null });
      expect(await flagOf('new-pricing')).toEqual({
        is_enabled: true,
        starts_at: null,
        ends_at: '2099-02-01T00:00:00Z',
        is_active: true,
      });
    });

    it('answers the unchanged revision when nothing changes', async () => {
      const revision = server.revision('shop');
      const same = await admin(server, 'PATCH', '/services/shop/flags/new-pricing', { ab: NEW_PRICING_AB });
      expect(same.json()).toEqual({ revision });
    });

    it('answers 404 for an unknown flag or service, and creates nothing', async () => {
      const missing = await admin(server, 'PATCH', '/services/shop/flags/missing', { is_enabled: true });
      expect([missing.status, missing.json()]).toEqual([
        404,
        { error: 'not_found', message: 'service "shop" has no flag "missing" (PUT creates one)' },
      ]);
      expect((await admin(server, 'PATCH', '/services/nope/flags/x', { is_enabled: true })).status).toBe(404);
      expect(await flagOf('missing')).toBeUndefined();
      expect(server.revision('shop')).toBe(1);
    });

    it.each<[string, unknown, string]>([
      ['no body', undefined, 'flag: must be an object, got nothing'],
      ['an array', [], 'flag: must be an object, got an array'],
      ['no member', {}, 'flag: must name at least one of is_enabled, starts_at, ends_at, ab'],
      [
        'an unknown member',
        { is_enabled: true, is_active: true },
        'flag: unknown member "is_active"; allowed: is_enabled, starts_at, ends_at, ab',
      ],
      ['a null switch', { is_enabled: null }, 'flag.is_enabled: must be a boolean, got null'],
      ['a string switch', { is_enabled: 'svs_looks_like_a_key' }, 'flag.is_enabled: must be a boolean, got a string'],
      [
        'a bad percentage',
        { ab: { percentage: 101, salt: 's' } },
        'flag.ab.percentage: must be a number from 0 to 100, got 101',
      ],
      ['a salt of the wrong type', { ab: { percentage: 1, salt: 7 } }, 'flag.ab.salt: must be a string, got a number'],
      [
        'an operator',
        {
          ab: {
            percentage: 1,
            salt: 's',
            cohorts: [{ conditions: [{ attribute: 'a', op: 'like', values: [] }], percentage: 1 }],
          },
        },
        'flag.ab.cohorts[0].conditions[0].op: must be one of eq, neq, in, not_in, starts_with, ends_with, contains; got "like"',
      ],
      [
        'condition values that are not strings',
        {
          ab: {
            percentage: 1,
            salt: 's',
            cohorts: [{ conditions: [{ attribute: 'a', op: 'eq', values: [5] }], percentage: 1 }],
          },
        },
        'flag.ab.cohorts[0].conditions[0].values[0]: must be a string, got a number',
      ],
      [
        'an end before the start the flag already has',
        { starts_at: '2099-02-01T00:00:00Z', ends_at: '2099-01-01T00:00:00Z' },
        'flag.ends_at: must be after starts_at (2099-02-01T00:00:00Z), got 2099-01-01T00:00:00Z',
      ],
    ])('refuses %s with 400, changing nothing', async (_, body, message) => {
      const before = await flagOf('new-pricing');
      const answer = await admin(server, 'PATCH', '/services/shop/flags/new-pricing', body);
      expect([answer.status, answer.json()]).toEqual([400, { error: 'invalid_request', message }]);
      expect(answer.text).not.toContain('svs_looks_like_a_key');
      expect(await flagOf('new-pricing')).toEqual(before);
      expect(server.revision('shop')).toBe(1);
    });

    it('refuses an end before the start the flag keeps', async () => {
      server.admin.patchFlag('shop', 'beta', { starts_at: '2099-02-01T00:00:00Z' });
      const answer = await admin(server, 'PATCH', '/services/shop/flags/beta', { ends_at: '2099-01-01T00:00:00Z' });
      expect(answer.json()['message']).toBe(
        'flag.ends_at: must be after starts_at (2099-02-01T00:00:00Z), got 2099-01-01T00:00:00Z',
      );
    });

    it('reaches an open stream as a patch with the whole flag record', async () => {
      const reader = await openStream(server, { slug: 'shop', key: TEST_KEYS.shopPublic });
      await reader.event(1);
      expect((await admin(server, 'PATCH', '/services/shop/flags/new-pricing', { is_enabled: false })).status).toBe(
        200,
      );
      expect(JSON.parse((await reader.event(2)).data)).toMatchObject({
        base: 1,
        revision: 2,
        flags: { 'new-pricing': { is_enabled: false, starts_at: null, ends_at: null, is_active: false } },
      });
      reader.close();
    });

    it('is what server.admin.patchFlag does in process, refusing an unknown flag', () => {
      expect(server.admin.patchFlag('shop', 'beta', { is_enabled: true })).toBe(2);
      expect(() => server.admin.patchFlag('shop', 'missing', { is_enabled: true })).toThrow(
        'service "shop" has no flag "missing" (PUT creates one)',
      );
    });
  });

  describe('PUT /services/{slug}/flags/{key} replaces the whole flag', () => {
    it('says which members it removed because the body left them out', async () => {
      server.admin.patchFlag('shop', 'new-pricing', { ends_at: '2099-01-01T00:00:00Z' });
      const answer = await admin(server, 'PUT', '/services/shop/flags/new-pricing', { is_enabled: true });
      expect(answer.json()).toEqual({
        revision: 3,
        removed: ['ends_at', 'ab'],
        warning:
          'PUT replaces the whole flag: ends_at and ab were not in the body and are now removed. ' +
          'PATCH changes only the members it names.',
      });
    });

    it('says nothing more when the body names every member the flag had, or the flag is new', async () => {
      const whole = await admin(server, 'PUT', '/services/shop/flags/new-pricing', {
        is_enabled: false,
        ab: { percentage: 0, salt: 'np-1', cohorts: [] },
      });
      expect(whole.json()).toEqual({ revision: 2 });
      const cleared = await admin(server, 'PUT', '/services/shop/flags/new-pricing', { is_enabled: false, ab: null });
      expect(cleared.json()).toEqual({ revision: 3 });
      expect((await admin(server, 'PUT', '/services/shop/flags/fresh', { is_enabled: true })).json()).toEqual({
        revision: 4,
      });
    });

    it('one missing member is named on its own', async () => {
      const answer = await admin(server, 'PUT', '/services/shop/flags/new-pricing', { is_enabled: true });
      expect(answer.json()['warning']).toBe(
        'PUT replaces the whole flag: ab was not in the body and is now removed. PATCH changes only the members it names.',
      );
    });
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
    expect((await admin(server, 'DELETE', `/services/shop/keys/${TEST_KEYS.otherSecret}`)).status).toBe(404);
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
    const reader = await openStream(server, { slug: 'shop', key: TEST_KEYS.shopPublic });
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
