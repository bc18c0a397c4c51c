/**
 * Issue #47's defects that need a restart or a second replica: console
 * sessions end with the owner token and with a logout everywhere, and the
 * wrong-token throttle is one for the fleet and survives a restart. On a
 * state file and on PostgreSQL.
 */
import { startVaneServer, type VaneServer, type VaneServerOptions } from '../src/index.js';
import { testSeed, until } from '../src/testing/index.js';
import { asConsole, call, consoleLogin } from './support/http-client.js';
import { describeOnDurableStores } from './support/durable-stores.js';

// A database per test and a restart or two on a loaded two-core machine.
jest.setTimeout(60_000);

/** Three free wrong guesses, then a minute's wait: longer than any test here. */
const STRICT_THROTTLE = { freeFailures: 3, baseDelayMs: 60_000, maxDelayMs: 60_000, forgetAfterMs: 600_000 };

describeOnDurableStores('access control across restarts and replicas (issue #47)', (store) => {
  const servers: VaneServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  async function start(options: VaneServerOptions = {}): Promise<VaneServer> {
    const server = await startVaneServer({
      seed: testSeed(),
      adminToken: 'owner-token-a',
      authThrottle: STRICT_THROTTLE,
      ...store.options(),
      ...options,
    });
    servers.push(server);
    return server;
  }

  async function restart(server: VaneServer, options: VaneServerOptions = {}): Promise<VaneServer> {
    servers.splice(servers.indexOf(server), 1);
    await server.close();
    return start(options);
  }

  it('#1: changing the owner token ends the owner console sessions opened with the old one', async () => {
    let server = await start();
    const login = await consoleLogin(server, 'owner-token-a');
    server = await restart(server, { adminToken: 'owner-token-b' });
    expect((await asConsole(server, login, { path: '/console/api/session' })).status).toBe(401);
    const write = await asConsole(server, login, {
      method: 'PUT',
      path: '/console/api/admin/v1/services/shop/configs/x',
      body: { value: 1 },
    });
    expect(write.status).toBe(401);
    // Back to the first token: the session was never logged out, so it holds again.
    server = await restart(server, { adminToken: 'owner-token-a' });
    expect((await asConsole(server, login, { path: '/console/api/session' })).status).toBe(200);
  });

  it('#2: a logout holds after a restart, and on every replica', async () => {
    let server = await start();
    const login = await consoleLogin(server, 'owner-token-a');
    const other = store.fleet ? await start() : undefined;
    if (other) expect((await asConsole(other, login, { path: '/console/api/session' })).status).toBe(200);
    const logout = await call(server, {
      method: 'POST',
      path: '/console/logout',
      body: new URLSearchParams({ csrf_token: login.csrf }).toString(),
      headers: {
        cookie: login.cookie,
        'content-type': 'application/x-www-form-urlencoded',
        'sec-fetch-site': 'same-origin',
      },
    });
    expect(logout.status).toBe(303);
    expect((await asConsole(server, login, { path: '/console/api/session' })).status).toBe(401);
    if (other) {
      await until(
        async () => (await asConsole(other, login, { path: '/console/api/session' })).status === 401,
        'the other replica to see the logout',
      );
    }
    server = await restart(server);
    expect((await asConsole(server, login, { path: '/console/api/session' })).status).toBe(401);
    // Another login of the same owner is a new session, untouched.
    const again = await consoleLogin(server, 'owner-token-a');
    expect((await asConsole(server, again, { path: '/console/api/session' })).status).toBe(200);
  });

  it('#13: the wrong-token throttle survives a restart, and is one for the fleet', async () => {
    let server = await start();
    const guess = (target: VaneServer, token: string) => call(target, { path: '/admin/v1/services', admin: token });
    for (let i = 0; i < 4; i++) expect((await guess(server, `wrong-${i}`)).status).toBe(401);
    expect((await guess(server, 'owner-token-a')).status).toBe(429);
    if (store.fleet) {
      const other = await start();
      await until(async () => (await guess(other, 'owner-token-a')).status === 429, 'the other replica to throttle');
    }
    server = await restart(server);
    const after = await guess(server, 'owner-token-a');
    expect(after.status).toBe(429);
    expect(Number(after.headers['retry-after'])).toBeGreaterThan(0);
  });
});
