import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalServer, type LocalServer } from '../src/index.js';
import { TEST_KEYS, testSeed, until, withTimeout } from '../src/testing/index.js';
import { request } from 'node:http';
import { admin, call, consoleLogin, type Answer } from './support/http-client.js';

type Right = 'read' | 'write' | 'secrets:reveal' | 'secrets:write' | 'keys' | 'admin';
const RIGHTS: Right[] = ['read', 'write', 'secrets:reveal', 'secrets:write', 'keys', 'admin'];

/** One operation on the service `shop` (in project `payments`), the right it needs, and its request. */
interface Operation {
  readonly name: string;
  readonly right: Right;
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  /** Only through the console's own routes (not forwarded to the admin API). */
  readonly consoleOnly?: boolean;
  readonly adminOnly?: boolean;
}

const OPERATIONS: Operation[] = [
  { name: 'read the service audit', right: 'read', method: 'GET', path: '/admin/v1/services/shop/audit' },
  { name: 'read trusts', right: 'read', method: 'GET', path: '/admin/v1/services/shop/trusts' },
  {
    name: 'set a config',
    right: 'write',
    method: 'PUT',
    path: '/admin/v1/services/shop/configs/a.b',
    body: { value: 1 },
  },
  { name: 'delete a config', right: 'write', method: 'DELETE', path: '/admin/v1/services/shop/configs/db.host' },
  {
    name: 'replace a flag',
    right: 'write',
    method: 'PUT',
    path: '/admin/v1/services/shop/flags/f',
    body: { is_enabled: true },
  },
  {
    name: 'patch a flag',
    right: 'write',
    method: 'PATCH',
    path: '/admin/v1/services/shop/flags/new-checkout',
    body: { is_enabled: false },
  },
  { name: 'delete a flag', right: 'write', method: 'DELETE', path: '/admin/v1/services/shop/flags/beta' },
  {
    name: 'write a secret',
    right: 'secrets:write',
    method: 'PUT',
    path: '/admin/v1/services/shop/secrets/s',
    body: { value: 'x' },
  },
  {
    name: 'delete a secret version',
    right: 'secrets:write',
    method: 'DELETE',
    path: '/admin/v1/services/shop/secrets/tls.client_pem/versions/1',
  },
  {
    name: 'delete a secret',
    right: 'secrets:write',
    method: 'DELETE',
    path: '/admin/v1/services/shop/secrets/stripe.api_key',
  },
  { name: 'list API keys', right: 'keys', method: 'GET', path: '/admin/v1/services/shop/keys' },
  {
    name: 'create an API key',
    right: 'keys',
    method: 'POST',
    path: '/admin/v1/services/shop/keys',
    body: { type: 'public' },
  },
  {
    name: 'revoke an API key',
    right: 'keys',
    method: 'DELETE',
    path: `/admin/v1/services/shop/keys/${TEST_KEYS.shopPublic}`,
  },
  {
    name: 'put a trust (public-key sessions)',
    right: 'keys',
    method: 'PUT',
    path: '/admin/v1/services/shop/trusts/ci',
    body: { provider: 'aws', role_arns: ['arn:aws:iam::123456789012:role/shop'], key_type: 'public' },
  },
  {
    name: 'change the service',
    right: 'admin',
    method: 'PUT',
    path: '/admin/v1/services/shop',
    body: { kind: 'worker' },
  },
  { name: 'rotate its data key', right: 'admin', method: 'POST', path: '/admin/v1/services/shop/data-key/rotate' },
  { name: 'view the service', right: 'read', method: 'GET', path: '/console/api/services/shop', consoleOnly: true },
  {
    name: 'reveal a secret',
    right: 'secrets:reveal',
    method: 'POST',
    path: '/console/api/services/shop/secrets/tls.client_pem/versions/2/reveal',
    consoleOnly: true,
  },
];

describe.each(['admin API', 'console'] as const)('every right × the %s: allowed, 403, 404', (surface) => {
  let dir: string;
  let server: LocalServer;
  /** Token per name: `has-<right>`, `lacks-<right>` (every other right), `elsewhere` (every right, another project). */
  const tokens = new Map<string, string>();
  const sessions = new Map<string, { cookie: string; csrf: string }>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vane-access-'));
    server = await startLocalServer({ seed: testSeed(), statePath: join(dir, 'state.json') });
    expect((await admin(server, 'PUT', '/projects/payments', {})).status).toBe(201);
    expect((await admin(server, 'PUT', '/services/shop', { project: 'payments' })).status).toBe(200);
    const make = async (name: string, rights: Right[], projects: string[]): Promise<void> => {
      const answer = await admin(server, 'POST', '/tokens', { name, scope: { projects }, rights });
      expect(answer.status).toBe(201);
      tokens.set(name, answer.json<{ token: string }>().token);
    };
    for (const right of RIGHTS) {
      await make(`has-${right.replace(':', '-')}`, [right], ['payments']);
      await make(
        `lacks-${right.replace(':', '-')}`,
        RIGHTS.filter((r) => r !== right),
        ['payments'],
      );
    }
    await make('elsewhere', RIGHTS, ['default']);
    if (surface === 'console') {
      for (const [name, token] of tokens) sessions.set(name, await consoleLogin(server, token));
    }
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function send(tokenName: string, operation: Operation): Promise<Answer> {
    if (surface === 'admin API') {
      return call(server, {
        method: operation.method,
        path: operation.path,
        admin: tokens.get(tokenName)!,
        body: operation.body,
      });
    }
    const session = sessions.get(tokenName)!;
    return call(server, {
      method: operation.method,
      path: operation.consoleOnly ? operation.path : `/console/api${operation.path}`,
      body: operation.body,
      headers: { cookie: session.cookie, 'sec-fetch-site': 'same-origin', 'x-csrf-token': session.csrf },
    });
  }

  const cases = OPERATIONS.filter((op) => (surface === 'console' ? !op.adminOnly : !op.consoleOnly));

  it.each(cases.map((op) => [op.name, op] as const))('%s', async (_name, operation) => {
    const suffix = operation.right.replace(':', '-');
    const before = (await admin(server, 'GET', '/audit?limit=1')).json<{ entries: Array<{ seq: number }> }>()
      .entries[0]!.seq;
    const outside = await send('elsewhere', operation);
    expect([outside.status, outside.json()['error']]).toEqual([404, 'not_found']);
    const lacking = await send(`lacks-${suffix}`, operation);
    expect([lacking.status, lacking.json()['error']]).toEqual([403, 'forbidden']);
    // Neither changed anything.
    const after = (await admin(server, 'GET', '/audit?limit=1')).json<{ entries: Array<{ seq: number }> }>().entries[0]!
      .seq;
    expect(after).toBe(before);
    const allowed = await send(`has-${suffix}`, operation);
    expect(allowed.status).toBeLessThan(300);
    if (operation.method !== 'GET' && !operation.consoleOnly) {
      const entry = (await admin(server, 'GET', '/audit?limit=1')).json<{ entries: Array<{ actor: string }> }>()
        .entries[0]!;
      expect(entry.actor).toBe(`has-${suffix}`);
    }
  });

  it('lists only the services a token sees, and shows a scoped token only its own audit entries', async () => {
    const list =
      surface === 'admin API'
        ? await send('has-read', { name: 'list', right: 'read', method: 'GET', path: '/admin/v1/services' })
        : await call(server, { path: '/console/api/overview', headers: { cookie: sessions.get('has-read')!.cookie } });
    expect(list.json<{ services: Array<{ slug: string }> }>().services.map((s) => s.slug)).toEqual(['shop']);
    const audit = await send('has-read', {
      name: 'audit',
      right: 'read',
      method: 'GET',
      path: '/admin/v1/audit?limit=1000',
    });
    const services = new Set(
      audit.json<{ entries: Array<{ service: string | null }> }>().entries.map((e) => e.service),
    );
    expect([...services]).toEqual(['shop']);
  });

  it('the console live feed sends a scoped session only its services, and ends when its token is revoked', async () => {
    if (surface !== 'console') return;
    const { cookie } = sessions.get('has-read')!;
    const frames: string[] = [];
    const ended = new Promise<void>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: server.port, path: '/console/api/events', headers: { cookie } },
        (res) => {
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => frames.push(chunk));
          res.on('close', () => resolve());
        },
      );
      req.on('error', reject);
      req.end();
    });
    await until(() => frames.join('').includes('data: '), 'the first overview');
    const first = /data: (.*)\n/.exec(frames.join(''))![1]!;
    expect((JSON.parse(first) as { services: Array<{ slug: string }> }).services.map((s) => s.slug)).toEqual(['shop']);
    expect((await admin(server, 'DELETE', '/tokens/has-read')).status).toBe(200);
    await withTimeout(ended, 'the feed of a revoked token to end');
    const after = await call(server, { path: '/console/api/overview', headers: { cookie } });
    expect(after.status).toBe(401);
  });

  it('keeps the tenant, projects and sealing keys for tokens scoped to every project', async () => {
    const tenant = await send('has-admin', {
      name: 't',
      right: 'admin',
      method: 'PUT',
      path: '/admin/v1/tenant',
      body: { overdue_days: 1 },
    });
    expect(tenant.status).toBe(403);
    const sealing = await send('has-admin', { name: 's', right: 'admin', method: 'GET', path: '/admin/v1/sealing' });
    expect(sealing.status).toBe(403);
  });
});

describe('admin tokens (POST/GET/DELETE /admin/v1/tokens)', () => {
  let server: LocalServer;
  beforeEach(async () => {
    server = await startLocalServer({ seed: testSeed() });
  });
  afterEach(() => server.close());

  it('shows a token once, lists it without it, and revokes it at once', async () => {
    const created = await admin(server, 'POST', '/tokens', {
      name: 'ci-readonly',
      scope: { projects: ['*'] },
      rights: ['read'],
    });
    expect(created.status).toBe(201);
    const { token } = created.json<{ name: string; token: string }>();
    expect(token).toMatch(/^vat_[A-Za-z0-9_-]{32}$/);
    expect((await call(server, { path: '/admin/v1/services', admin: token })).status).toBe(200);
    const list = await admin(server, 'GET', '/tokens');
    expect(list.text).not.toContain(token);
    expect(list.json()).toEqual({
      tokens: [
        {
          name: 'ci-readonly',
          scope: { projects: ['*'] },
          rights: ['read'],
          created_at: expect.stringMatching(/^\d{4}-/),
          last_used_at: expect.stringMatching(/^\d{4}-/),
        },
      ],
    });
    expect((await admin(server, 'DELETE', '/tokens/ci-readonly')).status).toBe(200);
    expect((await call(server, { path: '/admin/v1/services', admin: token })).status).toBe(401);
  });

  it('refuses a token that would grant more than its maker holds, a taken name, and bad requests', async () => {
    const maker = (
      await admin(server, 'POST', '/tokens', { name: 'maker', scope: { projects: ['*'] }, rights: ['admin', 'read'] })
    ).json<{ token: string }>().token;
    const more = await call(server, {
      method: 'POST',
      path: '/admin/v1/tokens',
      admin: maker,
      body: { name: 'wider', scope: { projects: ['*'] }, rights: ['secrets:reveal'] },
    });
    expect(more.status).toBe(403);
    expect(
      (await admin(server, 'POST', '/tokens', { name: 'maker', scope: { projects: ['*'] }, rights: ['read'] })).status,
    ).toBe(409);
    for (const bad of [
      { name: 'admin', scope: { projects: ['*'] }, rights: ['read'] },
      { name: 'x', scope: {}, rights: ['read'] },
      { name: 'x', scope: { projects: ['*'] }, rights: ['root'] },
      { name: 'x', scope: { projects: ['*'] }, rights: [] },
    ]) {
      expect((await admin(server, 'POST', '/tokens', bad)).status).toBe(400);
    }
  });
});
