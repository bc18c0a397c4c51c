import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startVaneServer, type VaneServer } from '../src/index.js';
import { TEST_KEYS, testSeed, until, withTimeout } from '../src/testing/index.js';
import { request } from 'node:http';
import { ADMIN_RIGHTS, type AdminRight } from '../src/domain/model.js';
import type { AccessTarget } from '../src/auth/authorize.js';
import { ADMIN_OPERATIONS } from '../src/http/admin-operations.js';
import { CONSOLE_API_ROUTES } from '../src/console/console-routes.js';
import { admin, asConsole, call, consoleLogin, type Answer, type ConsoleLogin } from './support/http-client.js';

type Right = AdminRight;
const RIGHTS: readonly Right[] = ADMIN_RIGHTS;

/** One walked route: a request on the service `shop` (in project `payments`), and what it reaches. */
interface Walked {
  readonly name: string;
  readonly right: Right;
  readonly target: AccessTarget['kind'];
  readonly method: string;
  /** The admin API's path (forwarded by the console under /console/api), or a console API path. */
  readonly path: string;
  readonly body?: unknown;
  readonly audit: string;
  /** Only through the console's own API. */
  readonly consoleOnly?: boolean;
  /** An event stream: the allowed answer is read as far as its status. */
  readonly stream?: boolean;
}

/**
 * A request for each operation of the tables, by `<METHOD> <path>`: an
 * operation added to ADMIN_OPERATIONS or CONSOLE_API_ROUTES without one here
 * fails the walk below, so none is left untried.
 */
const EXAMPLES: Readonly<Record<string, { params?: Record<string, string>; body?: unknown }>> = {
  'GET /tenant': {},
  'PUT /tenant': { body: { overdue_days: 0 } },
  'GET /audit': {},
  'GET /audit/head': {},
  'GET /sealing': {},
  'POST /root-key/rotate': {},
  'GET /projects': {},
  'PUT /projects/{name}': { params: { name: 'billing' } },
  'GET /tokens': {},
  // Within the token that makes it: a token never grants more than it holds.
  'POST /tokens': { body: { name: 'made-here', scope: { projects: ['payments'] }, rights: ['admin'] } },
  'DELETE /tokens/{name}': { params: { name: 'victim' } },
  'GET /services': {},
  'PUT /services/{slug}': { body: { kind: 'worker', project: 'payments' } },
  'GET /services/{slug}/audit': {},
  'GET /services/{slug}': {},
  'GET /services/{slug}/keys': {},
  'POST /services/{slug}/keys': { body: { type: 'public' } },
  'DELETE /services/{slug}/keys/{key}': { params: { key: TEST_KEYS.shopPublic } },
  'POST /services/{slug}/data-key/rotate': {},
  'GET /services/{slug}/trusts': {},
  'PUT /services/{slug}/trusts/{name}': {
    params: { name: 'ci' },
    body: { provider: 'aws', role_arns: ['arn:aws:iam::123456789012:role/shop'], key_type: 'public' },
  },
  'DELETE /services/{slug}/trusts/{name}': { params: { name: 'ci' } },
  'PUT /services/{slug}/configs/{key}': { params: { key: 'a.b' }, body: { value: 1 } },
  'DELETE /services/{slug}/configs/{key}': { params: { key: 'db.host' } },
  'PUT /services/{slug}/flags/{key}': { params: { key: 'f' }, body: { is_enabled: true } },
  'PATCH /services/{slug}/flags/{key}': { params: { key: 'new-checkout' }, body: { is_enabled: false } },
  'DELETE /services/{slug}/flags/{key}': { params: { key: 'beta' } },
  'PUT /services/{slug}/secrets/{key}': { params: { key: 's' }, body: { value: 'x' } },
  'DELETE /services/{slug}/secrets/{key}': { params: { key: 'stripe.api_key' } },
  'DELETE /services/{slug}/secrets/{key}/versions/{version}': { params: { key: 'tls.client_pem', version: '1' } },
  'GET /console/session': {},
  'GET /console/overview': {},
  'GET /console/events': {},
  'GET /console/services/{slug}': {},
  'POST /console/services/{slug}/secrets/{key}/versions/{version}/reveal': {
    params: { key: 'tls.client_pem', version: '2' },
  },
};

function fill(path: string, params: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_all, name: string) => encodeURIComponent(params[name] ?? 'shop'));
}

function example(key: string): { params: Record<string, string>; body?: unknown } {
  const found = EXAMPLES[key];
  if (found === undefined) throw new Error(`no example request for ${key}: add one to EXAMPLES in access.spec.ts`);
  return { params: { slug: 'shop', ...found.params }, body: found.body };
}

/** Every operation of both tables, as walked. */
const WALKED: Walked[] = [
  ...ADMIN_OPERATIONS.map((op): Walked => {
    const { params, body } = example(`${op.method} ${op.path}`);
    return {
      name: `${op.method} /admin/v1${op.path}`,
      right: op.right,
      target: op.target(params).kind,
      method: op.method,
      path: `/admin/v1${fill(op.path, params)}`,
      body,
      audit: op.audit,
    };
  }),
  ...CONSOLE_API_ROUTES.filter((route) => route.right !== 'none').map((route): Walked => {
    const { params } = example(`${route.method} /console${route.path}`);
    return {
      name: `${route.method} /console/api${route.path}`,
      right: route.right as Right,
      target: route.target(params).kind,
      method: route.method,
      path: `/console/api${fill(route.path, params)}`,
      audit: 'none',
      consoleOnly: true,
      stream: route.path === '/events',
    };
  }),
];

describe.each(['admin API', 'console'] as const)('every operation × every right and scope, on the %s', (surface) => {
  let dir: string;
  let server: VaneServer;
  /**
   * Token per name: `has-<right>` / `lacks-<right>` (that right / every other, on project `payments`),
   * `all-<right>` / `all-lacks-<right>` (the same on every project), `elsewhere` (every right, project
   * `default`), `other-service` (every right, services `other`).
   */
  const tokens = new Map<string, string>();
  const sessions = new Map<string, ConsoleLogin>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vane-access-'));
    server = await startVaneServer({ seed: testSeed(), statePath: join(dir, 'state.json') });
    expect((await admin(server, 'PUT', '/projects/payments', {})).status).toBe(201);
    expect((await admin(server, 'PUT', '/services/shop', { project: 'payments' })).status).toBe(200);
    const make = async (name: string, rights: readonly Right[], scope: object): Promise<void> => {
      const answer = await admin(server, 'POST', '/tokens', { name, scope, rights });
      expect(answer.status).toBe(201);
      tokens.set(name, answer.json<{ token: string }>().token);
    };
    for (const right of RIGHTS) {
      const others = RIGHTS.filter((r) => r !== right);
      const suffix = right.replace(':', '-');
      await make(`has-${suffix}`, [right], { projects: ['payments'] });
      await make(`lacks-${suffix}`, others, { projects: ['payments'] });
      await make(`all-${suffix}`, [right], { projects: ['*'] });
      await make(`all-lacks-${suffix}`, others, { projects: ['*'] });
    }
    await make('elsewhere', RIGHTS, { projects: ['default'] });
    await make('other-service', RIGHTS, { services: ['other'] });
    // What DELETE /tokens/{name} revokes (within `has-admin`, which revokes it).
    await make('victim', ['admin'], { projects: ['payments'] });
    if (surface === 'console') {
      for (const [name, token] of tokens) sessions.set(name, await consoleLogin(server, token));
    }
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function send(
    tokenName: string,
    operation: Pick<Walked, 'method' | 'path' | 'body' | 'consoleOnly'>,
  ): Promise<Answer> {
    if (surface === 'admin API') {
      return call(server, {
        method: operation.method,
        path: operation.path,
        admin: tokens.get(tokenName)!,
        body: operation.body,
      });
    }
    return asConsole(server, sessions.get(tokenName)!, {
      method: operation.method,
      path: operation.consoleOnly ? operation.path : `/console/api${operation.path}`,
      body: operation.body,
    });
  }

  /** The status of an event stream's answer, the stream closed once it is known. */
  function streamStatus(tokenName: string, path: string): Promise<number> {
    return withTimeout(
      new Promise<number>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port: server.port, path, headers: { cookie: sessions.get(tokenName)!.cookie } },
          (res) => {
            resolve(res.statusCode ?? 0);
            req.destroy();
          },
        );
        req.on('error', reject);
        req.end();
      }),
      `the status of ${path}`,
    );
  }

  const lastSeq = async (): Promise<number> =>
    (await admin(server, 'GET', '/audit?limit=1')).json<{ entries: Array<{ seq: number }> }>().entries[0]!.seq;

  const cases = WALKED.filter((op) => surface === 'console' || !op.consoleOnly);

  it.each(cases.map((op) => [op.name, op] as const))('%s', async (_name, operation) => {
    const suffix = operation.right.replace(':', '-');
    const refuse = async (token: string, status: number): Promise<void> => {
      const answer = await send(token, operation);
      expect([token, answer.status, answer.json()['error']]).toEqual([
        token,
        status,
        status === 404 ? 'not_found' : 'forbidden',
      ]);
    };
    const before = await lastSeq();
    if (operation.target === 'service') {
      await refuse('elsewhere', 404);
      await refuse('other-service', 404);
      await refuse(`lacks-${suffix}`, 403);
      await refuse(`all-lacks-${suffix}`, 403);
    } else if (operation.target === 'everything') {
      // What spans every project: refused to a token of a narrower scope, whatever rights it holds.
      await refuse(`has-${suffix}`, 403);
      await refuse('elsewhere', 403);
      await refuse('other-service', 403);
      await refuse(`all-lacks-${suffix}`, 403);
    } else {
      await refuse(`lacks-${suffix}`, 403);
      await refuse(`all-lacks-${suffix}`, 403);
    }
    // No refusal changed anything.
    expect(await lastSeq()).toBe(before);
    const allowedToken = operation.target === 'everything' ? `all-${suffix}` : `has-${suffix}`;
    if (operation.stream) {
      expect(await streamStatus(allowedToken, operation.path)).toBe(200);
      return;
    }
    const allowed = await send(allowedToken, operation);
    expect([allowed.status < 300, allowed.text]).toEqual([true, allowed.text]);
    if (operation.audit !== 'none') {
      const entry = (await admin(server, 'GET', '/audit?limit=1')).json<{
        entries: Array<{ actor: string; action: string }>;
      }>().entries[0]!;
      expect(entry).toMatchObject({ actor: allowedToken, action: operation.audit });
    }
  });

  it('lists only the services a token sees, and shows a scoped token only its own audit entries', async () => {
    const list =
      surface === 'admin API'
        ? await send('has-read', { method: 'GET', path: '/admin/v1/services' })
        : await call(server, { path: '/console/api/overview', headers: { cookie: sessions.get('has-read')!.cookie } });
    expect(list.json<{ services: Array<{ slug: string }> }>().services.map((s) => s.slug)).toEqual(['shop']);
    const audit = await send('has-read', {
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
      method: 'PUT',
      path: '/admin/v1/tenant',
      body: { overdue_days: 1 },
    });
    expect(tenant.status).toBe(403);
    const sealing = await send('has-admin', { method: 'GET', path: '/admin/v1/sealing' });
    expect(sealing.status).toBe(403);
  });
});

describe('admin tokens (POST/GET/DELETE /admin/v1/tokens)', () => {
  let server: VaneServer;
  beforeEach(async () => {
    server = await startVaneServer({ seed: testSeed() });
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
