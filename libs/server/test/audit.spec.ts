import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock, startVaneServer, type VaneServer } from '../src/index.js';
import { TEST_KEYS, TEST_SECRET_VALUES, testSeed } from '../src/testing/index.js';
import { admin, call } from './support/http-client.js';

interface Entry {
  seq: number;
  at: string;
  actor: string;
  action: string;
  service: string | null;
  key: string | null;
  revision: number | null;
  version?: number | null;
  old?: unknown;
  new?: unknown;
}
interface Page {
  entries: Entry[];
  next: string | null;
}

describe('the audit (GET /admin/v1/audit)', () => {
  let dir: string;
  let server: VaneServer;
  const statePath = (): string => join(dir, 'state.json');
  const page = async (query = ''): Promise<Page> => {
    const answer = await admin(server, 'GET', `/audit${query}`);
    expect(answer.status).toBe(200);
    return answer.json<Page>();
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vane-audit-'));
    server = await startVaneServer({
      seed: testSeed(),
      statePath: statePath(),
      clock: new ManualClock(Date.parse('2026-11-22T10:00:00Z')),
    });
  });
  afterEach(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // Every kind of change, each through the admin API or a service key, with the entry it must leave.
  const changes: Array<[string, () => Promise<unknown>, Partial<Entry>, (() => Promise<unknown>)?]> = [
    [
      'project created',
      () => admin(server, 'PUT', '/projects/payments', {}),
      { action: 'project.put', service: null, key: 'payments' },
    ],
    [
      'service moved to a project',
      () => admin(server, 'PUT', '/services/other', { project: 'payments' }),
      { action: 'service.put', service: 'other' },
      () => admin(server, 'PUT', '/projects/payments', {}),
    ],
    [
      'admin token created',
      () => admin(server, 'POST', '/tokens', { name: 'ci', scope: { projects: ['*'] }, rights: ['read'] }),
      { action: 'token.create', service: null, key: 'ci' },
    ],
    [
      'admin token revoked',
      () => admin(server, 'DELETE', '/tokens/ci'),
      { action: 'token.revoke', service: null, key: 'ci' },
      () => admin(server, 'POST', '/tokens', { name: 'ci', scope: { projects: ['*'] }, rights: ['read'] }),
    ],
    [
      'data key rotated',
      () => admin(server, 'POST', '/services/shop/data-key/rotate'),
      { action: 'data_key.rotate', key: 'dk2' },
    ],
    [
      'root key rotated',
      () => admin(server, 'POST', '/root-key/rotate', { root_key: Buffer.alloc(32, 7).toString('base64') }),
      { action: 'root_key.rotate', service: null },
    ],
    [
      'service created',
      () => admin(server, 'PUT', '/services/fresh', { kind: 'backend' }),
      { action: 'service.put', service: 'fresh', actor: 'admin' },
    ],
    [
      'service kind changed',
      () => admin(server, 'PUT', '/services/other', { kind: 'worker' }),
      { action: 'service.put', service: 'other' },
    ],
    [
      'key created',
      () => admin(server, 'POST', '/services/shop/keys', { type: 'public' }),
      { action: 'key.create', service: 'shop' },
    ],
    [
      'key revoked',
      () => admin(server, 'DELETE', `/services/shop/keys/${TEST_KEYS.shopPublic}`),
      { action: 'key.revoke', service: 'shop', key: 'svp_…blic' },
    ],
    [
      'config set',
      () => admin(server, 'PUT', '/services/shop/configs/db.host', { value: 'db.internal' }),
      { action: 'config.set', service: 'shop', key: 'db.host', old: 'localhost', new: 'db.internal' },
    ],
    [
      'config deleted',
      () => admin(server, 'DELETE', '/services/shop/configs/db.host'),
      { action: 'config.delete', service: 'shop', key: 'db.host', old: 'localhost' },
    ],
    [
      'flag replaced',
      () => admin(server, 'PUT', '/services/shop/flags/beta', { is_enabled: true }),
      {
        action: 'flag.set',
        key: 'beta',
        old: { is_enabled: false, starts_at: null, ends_at: null },
        new: { is_enabled: true, starts_at: null, ends_at: null },
      },
    ],
    [
      'flag patched',
      () => admin(server, 'PATCH', '/services/shop/flags/beta', { is_enabled: true }),
      { action: 'flag.set', key: 'beta', new: { is_enabled: true, starts_at: null, ends_at: null } },
    ],
    [
      'flag deleted',
      () => admin(server, 'DELETE', '/services/shop/flags/beta'),
      { action: 'flag.delete', key: 'beta' },
    ],
    [
      'secret set by the admin API',
      () => admin(server, 'PUT', '/services/shop/secrets/db.password', { value: 'canary-admin-1' }),
      { action: 'secret.set', key: 'db.password', version: 1 },
    ],
    [
      'secret set with a service key',
      () =>
        call(server, {
          method: 'PUT',
          path: '/v1/secrets/db.password',
          slug: 'shop',
          key: TEST_KEYS.shopSecret,
          body: { value: 'canary-key-1' },
        }),
      { action: 'secret.set', key: 'db.password', actor: 'svs_…cret' },
    ],
    [
      'secret version deleted',
      () => admin(server, 'DELETE', '/services/shop/secrets/tls.client_pem/versions/1'),
      { action: 'secret.version.delete', key: 'tls.client_pem', version: 1 },
    ],
    [
      'secret deleted',
      () => admin(server, 'DELETE', '/services/shop/secrets/stripe.api_key'),
      { action: 'secret.delete', key: 'stripe.api_key', version: null },
    ],
    [
      'tenant changed',
      () => admin(server, 'PUT', '/tenant', { overdue_days: 3 }),
      { action: 'tenant.set', service: null },
    ],
    [
      'trust created',
      () =>
        admin(server, 'PUT', '/services/shop/trusts/ci', {
          provider: 'aws',
          role_arns: ['arn:aws:iam::123456789012:role/shop'],
          key_type: 'secret',
        }),
      { action: 'trust.put', key: 'ci' },
    ],
  ];

  it.each(changes.map(([name, make, expected, prepare]) => ({ name, make, expected, prepare })))(
    '$name: exactly one entry, in the same journal record as the change',
    async ({ make, expected, prepare }) => {
      await prepare?.();
      const before = (await page('?limit=1')).entries[0]?.seq ?? 0;
      const answer = (await make()) as { status: number };
      expect(answer.status).toBeLessThan(300);
      const entries = (await page()).entries.filter((e) => e.seq > before);
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ actor: 'admin', service: 'shop', ...expected });
      expect(JSON.stringify(entries[0])).not.toContain('canary');
      if (expected.action!.endsWith('.rotate')) {
        // A rotation folds the journal into the state file (a data key's in the background): once closed, it is there.
        await server.close();
        const state = JSON.parse(readFileSync(statePath(), 'utf8')) as { audit: Entry[] };
        expect(state.audit.at(-1)).toMatchObject({ seq: entries[0]!.seq, action: expected.action });
        return;
      }
      // One journal line holds the change and its entry together.
      const lines = readFileSync(`${statePath()}.journal`, 'utf8').trim().split('\n');
      const record = JSON.parse(lines.at(-1)!.slice(9)) as { audit?: Entry };
      expect(record.audit).toMatchObject({ seq: entries[0]!.seq, action: expected.action });
    },
  );

  it('records nothing for a change that changes nothing', async () => {
    const before = (await page()).entries.length;
    await admin(server, 'PUT', '/services/shop/configs/db.host', { value: 'localhost' });
    expect((await page()).entries).toHaveLength(before);
  });

  it('filters by service, key, actor and time, newest first, a page at a time', async () => {
    for (let n = 1; n <= 5; n++) await admin(server, 'PUT', '/services/shop/configs/a.n', { value: n });
    await admin(server, 'PUT', '/services/other/configs/a.n', { value: 0 });
    const first = await page('?service=shop&key=a.n&limit=2');
    expect(first.entries.map((e) => e.new)).toEqual([5, 4]);
    const second = await page(`?service=shop&key=a.n&limit=2&cursor=${first.next!}`);
    expect(second.entries.map((e) => e.new)).toEqual([3, 2]);
    const last = await page(`?service=shop&key=a.n&limit=2&cursor=${second.next!}`);
    expect(last.entries.map((e) => e.new)).toEqual([1]);
    expect(last.next).toBeNull();
    expect((await page('?actor=nobody')).entries).toEqual([]);
    expect((await page('?since=2026-11-22T10:00:00Z&service=other')).entries).toHaveLength(1);
    expect((await page('?until=2026-11-22T10:00:00Z')).entries).toEqual([]);
    for (const bad of ['?limit=0', '?limit=abc', '?limit=1001', '?since=yesterday', '?cursor=nope']) {
      expect((await admin(server, 'GET', `/audit${bad}`)).status).toBe(400);
    }
  });

  it('never holds a secret value, in the answer or on disk', async () => {
    await admin(server, 'PUT', '/services/shop/secrets/db.password', { value: 'canary-on-disk' });
    const text = JSON.stringify(await page('?limit=1000'));
    for (const value of [...Object.values(TEST_SECRET_VALUES), 'canary-on-disk']) expect(text).not.toContain(value);
  });

  it('comes back after a restart, chained on', async () => {
    await admin(server, 'PUT', '/services/shop/configs/a.n', { value: 1 });
    await server.close();
    server = await startVaneServer({ statePath: statePath() });
    await admin(server, 'PUT', '/services/shop/configs/a.n', { value: 2 });
    const entries = (await page()).entries;
    expect(entries.map((e) => e.seq)).toEqual([2, 1]);
    expect(entries.map((e) => e.new)).toEqual([2, 1]);
  });
});
