import { request } from 'node:http';
import { createParser } from 'eventsource-parser';
import { CONSOLE_CSP } from '../src/console/console-headers.js';
import { startVaneServer, type VaneServer } from '../src/index.js';
import { admin, call, openStream, type Answer, type Call } from './support/http-client.js';
import { DEFAULT_WAIT_MS, TEST_KEYS, testSeed } from '../src/testing/index.js';

const TOKEN = 'admin-token-for-console-tests';

describe('web console (/console): routes, auth and headers', () => {
  let server: VaneServer;
  beforeEach(async () => {
    server = await startVaneServer({ seed: testSeed(), adminToken: TOKEN });
  });
  afterEach(() => server.close());

  /** A form post as a browser sends it from the console's own page. */
  const postForm = (
    path: string,
    form: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<Answer> =>
    call(server, {
      method: 'POST',
      path,
      body: new URLSearchParams(form).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', ...headers },
    });

  /** Logs in and returns the cookie and the CSRF token. */
  async function login(): Promise<{ cookie: string; csrf: string }> {
    const answer = await postForm('/console/login', { token: TOKEN });
    expect(answer.status).toBe(303);
    const cookie = String(answer.headers['set-cookie']).split(';')[0]!;
    const session = await call(server, { path: '/console/api/session', headers: { cookie } });
    return { cookie, csrf: session.json<{ csrf_token: string }>().csrf_token };
  }

  const asConsole = (session: { cookie: string; csrf?: string }, spec: Call): Promise<Answer> =>
    call(server, {
      ...spec,
      headers: {
        cookie: session.cookie,
        'sec-fetch-site': 'same-origin',
        ...(session.csrf ? { 'x-csrf-token': session.csrf } : {}),
        ...spec.headers,
      },
    });

  function expectSecurityHeaders(answer: Answer): void {
    expect(answer.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['x-frame-options']).toBe('DENY');
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
  }

  it('sends a visitor without a session to the login page, and serves it with a strict CSP', async () => {
    const root = await call(server, { path: '/console' });
    expect([root.status, root.headers['location']]).toEqual([303, '/console/']);
    const page = await call(server, { path: '/console/' });
    expect([page.status, page.headers['location']]).toEqual([303, '/console/login']);
    const form = await call(server, { path: '/console/login' });
    expect(form.status).toBe(200);
    expect(form.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(form.text).toContain('<form method="post" action="/console/login">');
    expect(form.text).not.toContain('role="alert"');
    for (const answer of [root, page, form]) expectSecurityHeaders(answer);
    expect(CONSOLE_CSP).toMatch(/default-src 'none'/);
    expect(CONSOLE_CSP).not.toMatch(/unsafe|https?:|\*/);
  });

  it('refuses a wrong token with 401 and the form again, setting no cookie', async () => {
    for (const token of ['wrong', '', `${TOKEN}x`]) {
      const answer = await postForm('/console/login', { token });
      expect(answer.status).toBe(401);
      expect(answer.headers['set-cookie']).toBeUndefined();
      expect(answer.text).toContain('That is not the admin token');
      expectSecurityHeaders(answer);
    }
  });

  it('trades the admin token for an HttpOnly, SameSite=Strict session cookie that never holds the token', async () => {
    const answer = await postForm('/console/login', { token: TOKEN });
    expect([answer.status, answer.headers['location']]).toEqual([303, '/console/']);
    const cookie = String(answer.headers['set-cookie']);
    expect(cookie).toMatch(
      /^vane_console=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}; Path=\/console; HttpOnly; SameSite=Strict; Max-Age=43200$/,
    );
    expect(cookie).not.toContain(TOKEN);
    const page = await call(server, { path: '/console/', headers: { cookie: cookie.split(';')[0]! } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<script type="module" src="/console/assets/app.js"></script>');
    expectSecurityHeaders(page);
  });

  it('refuses a login posted from another site', async () => {
    const answer = await postForm('/console/login', { token: TOKEN }, { 'sec-fetch-site': 'cross-site' });
    expect(answer.status).toBe(403);
    expect(answer.headers['set-cookie']).toBeUndefined();
  });

  it('answers 401 on the console API without a session or with a forged one', async () => {
    for (const cookie of [undefined, 'vane_console=forged', `vane_console=${TOKEN}`]) {
      const answer = await call(server, { path: '/console/api/overview', headers: cookie ? { cookie } : {} });
      expect(answer.status).toBe(401);
      expect(answer.json()).toEqual({ error: 'unauthorized', message: 'log in to the console first' });
      expectSecurityHeaders(answer);
    }
    // The admin token itself is no console credential: only the session cookie is.
    const bearer = await call(server, { path: '/console/api/overview', admin: true });
    expect(bearer.status).toBe(401);
  });

  it('refuses every change without the session CSRF token, or from another site, and changes nothing', async () => {
    const session = await login();
    const before = server.revision('shop');
    const change = { method: 'PUT', path: '/console/api/admin/v1/services/shop/configs/db.host', body: { value: 'x' } };
    const refused = [
      await asConsole({ cookie: session.cookie }, change),
      await asConsole({ cookie: session.cookie, csrf: 'wrong' }, change),
      // A plain HTML form can post, but it cannot set a header.
      await asConsole(
        { cookie: session.cookie },
        {
          method: 'POST',
          path: '/console/api/admin/v1/services/shop/keys',
          body: 'type=secret',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        },
      ),
    ];
    for (const answer of refused) {
      expect(answer.status).toBe(403);
      expect(answer.json()['error']).toBe('csrf_token_invalid');
    }
    const crossSite = await asConsole(session, { ...change, headers: { 'sec-fetch-site': 'cross-site' } });
    expect(crossSite.status).toBe(403);
    expect(server.revision('shop')).toBe(before);
    expect(server.services().find((s) => s.slug === 'shop')!.keys).toHaveLength(2);
  });

  it('forwards changes to the admin API: same answers, same 400 messages, nothing changed on a refusal', async () => {
    const session = await login();
    const ok = await asConsole(session, {
      method: 'PUT',
      path: '/console/api/admin/v1/services/shop/configs/db.host',
      body: { value: 'db.internal' },
    });
    expect([ok.status, ok.json()]).toEqual([200, { revision: 2 }]);
    expectSecurityHeaders(ok);
    const refused = await asConsole(session, {
      method: 'PUT',
      path: '/console/api/admin/v1/services/shop/configs/db.host',
      body: { value: { nested: true } },
    });
    expect(refused.status).toBe(400);
    expect(refused.json()).toEqual({ error: 'invalid_request', message: 'value: objects are not config values' });
    expect(server.revision('shop')).toBe(2);
    const view = await asConsole(session, { path: '/console/api/services/shop' });
    expect(view.json<{ configs: Record<string, unknown> }>().configs['db.host']).toBe('db.internal');
  });

  it('forwards a flag PATCH (the A/B and schedule forms) and offers the server’s A/B operators', async () => {
    const session = await login();
    const answer = await asConsole(session, { path: '/console/api/session' });
    expect(answer.json()).toEqual({
      csrf_token: session.csrf,
      expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      actor: 'admin',
      rights: ['read', 'write', 'secrets:reveal', 'secrets:write', 'keys', 'admin'],
      scoped: false,
      ab_operators: ['eq', 'neq', 'in', 'not_in', 'starts_with', 'ends_with', 'contains'],
    });
    const patched = await asConsole(session, {
      method: 'PATCH',
      path: '/console/api/admin/v1/services/shop/flags/new-pricing',
      body: { ab: { percentage: 100, salt: 'console', cohorts: [] } },
    });
    expect([patched.status, patched.json()]).toEqual([200, { revision: 2 }]);
    expectSecurityHeaders(patched);
    const view = (await asConsole(session, { path: '/console/api/services/shop' })).json<{
      flags: Record<string, unknown>;
    }>();
    expect(view.flags['new-pricing']).toEqual({
      is_enabled: true,
      starts_at: null,
      ends_at: null,
      ab: { percentage: 100, salt: 'console', cohorts: [] },
      is_active: true,
    });
  });

  it('lists secrets by name, type and version without values, and reveals one version only on request', async () => {
    server.admin.setSecret('shop', 'stripe.api_key', 'rk_console_v2');
    const session = await login();
    const view = await asConsole(session, { path: '/console/api/services/shop' });
    expect(view.status).toBe(200);
    expect(view.text).not.toContain('rk_');
    const { secrets } = view.json<{
      secrets: Record<string, { type: string; versions: Array<{ version: number }> }>;
    }>();
    expect(secrets['stripe.api_key']!.type).toBe('text');
    expect(secrets['stripe.api_key']!.versions.map((v) => v.version)).toEqual([1, 2]);

    const reveal = (version: string, csrf = session.csrf): Promise<Answer> =>
      asConsole(
        { cookie: session.cookie, csrf },
        { method: 'POST', path: `/console/api/services/shop/secrets/stripe.api_key/versions/${version}/reveal` },
      );
    const shown = await reveal('2');
    expect([shown.status, shown.json()]).toEqual([200, { value: 'rk_console_v2' }]);
    expect((await reveal('2', 'wrong')).status).toBe(403);
    expect((await reveal('9')).status).toBe(404);
    expect((await reveal('x')).status).toBe(404);
  });

  it('shows flags with is_active as the server serves it, the tenant and the open streams', async () => {
    const session = await login();
    const stream = await openStream(server, { slug: 'shop', key: TEST_KEYS.shopSecret });
    await stream.event(1);
    const overview = (await asConsole(session, { path: '/console/api/overview' })).json<{
      services: Array<{ slug: string; open_streams: number; revision: number }>;
      open_streams: number;
      billing_overdue: boolean;
    }>();
    expect(overview.open_streams).toBe(1);
    expect(overview.services.find((s) => s.slug === 'shop')).toEqual({
      slug: 'shop',
      project: 'default',
      kind: 'backend',
      revision: 1,
      open_streams: 1,
    });
    expect(overview.billing_overdue).toBe(false);
    const view = (await asConsole(session, { path: '/console/api/services/shop' })).json<{
      flags: Record<string, { is_enabled: boolean; is_active: boolean }>;
    }>();
    expect(view.flags['beta']).toMatchObject({ is_enabled: false, is_active: false });
    expect(view.flags['new-checkout']).toMatchObject({ is_enabled: true, is_active: true });
    stream.close();
  });

  it('pushes the overview to open consoles when the admin API or a stream changes something', async () => {
    const session = await login();
    const feed = await openConsoleFeed(server, session.cookie);
    try {
      expect(feed.headers['content-type']).toBe('text/event-stream');
      await feed.until((o) => o.services.some((s) => s.slug === 'shop' && s.revision === 1), 'the first overview');
      await admin(server, 'PUT', '/services/shop/flags/beta', { is_enabled: true });
      await feed.until((o) => o.services.some((s) => s.slug === 'shop' && s.revision === 2), 'revision 2');
      await admin(server, 'PUT', '/tenant', { overdue_days: 20 });
      await feed.until((o) => o.billing_overdue, 'billing overdue');
      await admin(server, 'PUT', '/tenant', { overdue_days: 0 });
      const stream = await openStream(server, { slug: 'other', key: TEST_KEYS.otherSecret });
      await feed.until((o) => o.open_streams === 1, 'one open stream');
      stream.close();
      await feed.until((o) => o.open_streams === 0, 'the stream closed');
    } finally {
      feed.close();
    }
  });

  it('logs out only with the CSRF token; the session then ends', async () => {
    const session = await login();
    const refused = await postForm('/console/logout', {}, { cookie: session.cookie });
    expect(refused.status).toBe(403);
    expect((await call(server, { path: '/console/api/overview', headers: { cookie: session.cookie } })).status).toBe(
      200,
    );
    const out = await postForm('/console/logout', { csrf_token: session.csrf }, { cookie: session.cookie });
    expect([out.status, out.headers['location']]).toEqual([303, '/console/login']);
    expect(String(out.headers['set-cookie'])).toContain('Max-Age=0');
    expect((await call(server, { path: '/console/api/overview', headers: { cookie: session.cookie } })).status).toBe(
      401,
    );
  });

  it('serves only its own files, each with its type, and nothing that loads from elsewhere', async () => {
    const types: Record<string, string> = {
      'app.js': 'text/javascript; charset=utf-8',
      'console.css': 'text/css; charset=utf-8',
      'login.html': 'text/html; charset=utf-8',
    };
    for (const [name, type] of Object.entries(types)) {
      const answer = await call(server, { path: `/console/assets/${name}` });
      expect([answer.status, answer.headers['content-type']]).toEqual([200, type]);
      expect(answer.text).not.toMatch(/(src|href|url)\s*[=(]\s*["']?(https?:)?\/\//);
      expectSecurityHeaders(answer);
    }
    for (const path of [
      '/console/assets/console-routes.ts',
      '/console/assets/..%2Fconsole-routes.ts',
      '/console/assets/../console-routes.ts',
      '/console/assets/index.html',
      '/console/nothing',
    ]) {
      expect((await call(server, { path })).status).toBe(404);
    }
  });
});

interface FeedOverview {
  services: Array<{ slug: string; revision: number; open_streams: number }>;
  open_streams: number;
  billing_overdue: boolean;
}

/** The console's live feed as a page sees it: the latest overview, and a bounded wait for one that matches. */
function openConsoleFeed(
  server: VaneServer,
  cookie: string,
): Promise<{
  headers: Record<string, unknown>;
  until(predicate: (overview: FeedOverview) => boolean, what: string): Promise<void>;
  close(): void;
}> {
  return new Promise((resolve, reject) => {
    const seen: FeedOverview[] = [];
    let wake: (() => void) | undefined;
    const parser = createParser({
      onEvent: (event) => {
        if (event.event === 'overview') seen.push(JSON.parse(event.data) as FeedOverview);
        wake?.();
      },
    });
    const req = request(
      { host: '127.0.0.1', port: server.port, path: '/console/api/events', headers: { cookie } },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => parser.feed(chunk));
        res.on('error', () => undefined);
        resolve({
          headers: res.headers,
          async until(predicate, what) {
            const deadline = Date.now() + DEFAULT_WAIT_MS;
            while (!seen.some(predicate)) {
              const left = deadline - Date.now();
              if (left <= 0) throw new Error(`timed out waiting for ${what}; saw ${JSON.stringify(seen.at(-1))}`);
              await new Promise<void>((done) => {
                const timer = setTimeout(done, left);
                wake = () => {
                  clearTimeout(timer);
                  done();
                };
              });
            }
            seen.splice(0, seen.length - 1);
          },
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
