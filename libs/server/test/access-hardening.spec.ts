/**
 * Issue #47's defects, one test each, on the store the suite runs on (the
 * memory store here, PostgreSQL under `npm run test:server-on-postgres`);
 * what needs a restart or a second replica is in access-persistence.spec.ts.
 */
import { connect } from 'node:net';
import { startVaneServer, type VaneServer } from '../src/index.js';
import { TEST_KEYS, TEST_SECRET_VALUES, testSeed, withTimeout } from '../src/testing/index.js';
import { admin, asConsole, call, consoleLogin } from './support/http-client.js';

describe('access control (issue #47)', () => {
  let server: VaneServer;
  afterEach(async () => {
    await server?.close();
  });

  /** A scoped token's value. */
  async function token(name: string, rights: string[], scope: object = { projects: ['*'] }): Promise<string> {
    const answer = await admin(server, 'POST', '/tokens', { name, scope, rights });
    expect(answer.status).toBe(201);
    return answer.json<{ token: string }>().token;
  }

  it('#3: minting a secret key, or a trust that hands out secret-key sessions, takes secrets:reveal and secrets:write too', async () => {
    server = await startVaneServer({ seed: testSeed() });
    const keysOnly = await token('keys-only', ['keys']);
    const all = await token('keys-and-secrets', ['keys', 'secrets:reveal', 'secrets:write']);
    const mint = (bearer: string, type: string) =>
      call(server, { method: 'POST', path: '/admin/v1/services/shop/keys', admin: bearer, body: { type } });
    const trust = (bearer: string, keyType: string) =>
      call(server, {
        method: 'PUT',
        path: '/admin/v1/services/shop/trusts/ci',
        admin: bearer,
        body: { provider: 'aws', role_arns: ['arn:aws:iam::123456789012:role/shop'], key_type: keyType },
      });
    const refused = await mint(keysOnly, 'secret');
    expect([refused.status, refused.json()['error']]).toEqual([403, 'forbidden']);
    expect(refused.json()['message']).toContain('secrets:reveal');
    expect((await trust(keysOnly, 'secret')).status).toBe(403);
    expect((await mint(keysOnly, 'public')).status).toBe(201);
    expect((await trust(keysOnly, 'public')).status).toBe(200);
    expect((await mint(all, 'secret')).status).toBe(201);
    expect((await trust(all, 'secret')).status).toBe(200);
  });

  it('#6: audit entries carry hash and prev, and GET /admin/v1/audit/head gives the head to keep', async () => {
    server = await startVaneServer({ seed: testSeed() });
    for (const value of [1, 2])
      expect((await admin(server, 'PUT', '/services/shop/configs/a', { value })).status).toBe(200);
    const entries = (await admin(server, 'GET', '/audit')).json<{
      entries: Array<{ seq: number; prev: string; hash: string; keyed_by?: string }>;
    }>().entries;
    expect(entries).toHaveLength(2);
    expect(entries[1]).toMatchObject({ seq: 1, prev: '0'.repeat(64), hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(entries[0]!.prev).toBe(entries[1]!.hash);
    // A sealed store (PostgreSQL, a state file) keys its chain and names the audit key; memory does not.
    const keyedBy = entries[0]!.keyed_by;
    expect(keyedBy === undefined ? 'unkeyed' : keyedBy).toMatch(/^(unkeyed|ak_[0-9a-f]{16})$/);
    expect((await admin(server, 'GET', '/audit/head')).status).toBe(200);
    const head = await admin(server, 'GET', '/audit/head');
    expect(head.json()).toEqual({ hash: entries[0]!.hash, position: 2, at: expect.stringMatching(/^\d{4}-/) });
    // The head spans every service: a token that sees only some does not get it.
    const scoped = await token('shop-reader', ['read'], { services: ['shop'] });
    expect((await call(server, { path: '/admin/v1/audit/head', admin: scoped })).status).toBe(403);
    expect((await call(server, { path: '/admin/v1/audit/head', admin: await token('w', ['write']) })).status).toBe(403);
  });

  it('#7: a Host with a trailing dot or in capitals is a service host name still, kept off the admin API and console', async () => {
    server = await startVaneServer({ seed: testSeed(), publicUrl: 'http://{slug}.svc.test' });
    for (const host of ['shop.svc.test', 'shop.svc.test.', 'SHOP.Svc.Test.', `shop.svc.test.:${server.port}`]) {
      expect([host, (await call(server, { path: '/admin/v1/services', admin: true, host })).status]).toEqual([
        host,
        404,
      ]);
      expect([host, (await call(server, { path: '/console/login', host })).status]).toEqual([host, 404]);
    }
    expect((await call(server, { path: '/admin/v1/services', admin: true, host: 'admin.internal.' })).status).toBe(200);
  });

  it('#8: a token scoped to services sees only those services in GET /admin/v1/projects', async () => {
    server = await startVaneServer({ seed: testSeed() });
    const pay = await token('pay-reader', ['read'], { services: ['shop'] });
    const answer = await call(server, { path: '/admin/v1/projects', admin: pay });
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({
      projects: [{ name: 'default', created_at: null, services: ['shop'] }],
    });
  });

  it('#9: the console takes the read right for its overview and live feed, as the admin API does for its list', async () => {
    server = await startVaneServer({ seed: testSeed() });
    const writer = await consoleLogin(server, await token('writer', ['write']));
    expect((await call(server, { path: '/admin/v1/services', admin: await token('w2', ['write']) })).status).toBe(403);
    const overview = await asConsole(server, writer, { path: '/console/api/overview' });
    expect([overview.status, overview.json()['error']]).toEqual([403, 'forbidden']);
    expect((await asConsole(server, writer, { path: '/console/api/events' })).status).toBe(403);
    const reader = await consoleLogin(server, await token('reader', ['read']));
    expect((await asConsole(server, reader, { path: '/console/api/overview' })).status).toBe(200);
  });

  it('#10: the services of a token scope are slugs', async () => {
    server = await startVaneServer({ seed: testSeed() });
    for (const bad of ['<img src=x onerror=alert(1)>', '', 'ÜNI', 'Shop']) {
      const answer = await admin(server, 'POST', '/tokens', {
        name: 'scoped',
        scope: { services: ['shop', bad] },
        rights: ['read'],
      });
      expect([bad, answer.status, answer.json()['message']]).toEqual([
        bad,
        400,
        expect.stringContaining('token.scope.services[1]'),
      ]);
    }
    expect((await admin(server, 'GET', '/tokens')).json()).toEqual({ tokens: [] });
  });

  it('#11: PUT /admin/v1/projects/{name} reads and checks its body', async () => {
    server = await startVaneServer({ seed: testSeed() });
    const malformed = await admin(server, 'PUT', '/projects/payments', '{"oops"');
    expect([malformed.status, malformed.json()['error']]).toEqual([400, 'invalid_request']);
    expect((await admin(server, 'PUT', '/projects/payments', { colour: 'red' })).status).toBe(400);
    expect((await admin(server, 'PUT', '/projects/payments', [])).status).toBe(400);
    const huge = await admin(server, 'PUT', '/projects/payments', JSON.stringify({ x: 'y'.repeat(2 * 1024 * 1024) }));
    expect(huge.status).toBe(413);
    const projects = (await admin(server, 'GET', '/projects')).json<{ projects: Array<{ name: string }> }>();
    expect(projects.projects.map((p) => p.name)).toEqual(['default']);
    expect((await admin(server, 'PUT', '/projects/payments')).status).toBe(201);
    expect((await admin(server, 'PUT', '/projects/payments', {})).status).toBe(200);
  });

  it('#12: a body over 1 MiB gets a 413 the client reads after its upload, not a reset', async () => {
    server = await startVaneServer({ seed: testSeed() });
    // 6 MiB: more than loopback socket buffers hold, so the upload is still under way when the server answers.
    const body = Buffer.alloc(6 * 1024 * 1024, 0x61);
    for (const [path, headers] of [
      ['/admin/v1/services/shop/configs/big', `authorization: Bearer ${server.adminToken}`],
      ['/v1/secrets/big', `x-service-api-key: ${TEST_KEYS.shopSecret}`],
    ] as const) {
      for (const framing of [`content-length: ${body.length}`, 'transfer-encoding: chunked']) {
        const chunked = framing.startsWith('transfer');
        const upload = Buffer.concat([
          Buffer.from(
            `PUT ${path} HTTP/1.1\r\nhost: shop.localhost:${server.port}\r\n${headers}\r\n` +
              `content-type: application/json\r\n${framing}\r\n\r\n`,
          ),
          chunked ? Buffer.from(`${body.length.toString(16)}\r\n`) : Buffer.alloc(0),
          body,
          chunked ? Buffer.from('\r\n0\r\n\r\n') : Buffer.alloc(0),
        ]);
        // A client that reads its answer only once its upload is written (as many do): a reset loses the answer.
        const answer = await withTimeout(
          new Promise<string>((resolve, reject) => {
            const socket = connect(server.port, '127.0.0.1');
            socket.pause();
            const chunks: Buffer[] = [];
            socket.on('data', (chunk: Buffer) => {
              chunks.push(chunk);
              if (Buffer.concat(chunks).includes('}')) {
                socket.destroy();
                resolve(Buffer.concat(chunks).toString('utf8'));
              }
            });
            socket.on('error', reject);
            socket.write(upload, (error) => {
              if (error) reject(error);
              else socket.resume();
            });
          }),
          `the 413 of ${path} (${framing})`,
        );
        expect([path, framing, answer]).toEqual([
          path,
          framing,
          expect.stringMatching(/^HTTP\/1\.1 413 [^]*"error":"payload_too_large"/),
        ]);
      }
    }
  });

  it('#46 item 8: GET /admin/v1/services/{slug} reads a service under read and the scope, never a secret value or a key', async () => {
    server = await startVaneServer({ seed: testSeed() });
    const reader = await token('shop-reader', ['read'], { services: ['shop'] });
    const answer = await call(server, { path: '/admin/v1/services/shop', admin: reader });
    expect(answer.status).toBe(200);
    const body = answer.json<{
      configs: Record<string, unknown>;
      flags: Record<string, { is_enabled: boolean; is_active: boolean }>;
      secrets: Record<string, { type: string; versions: Array<{ version: number; created_at: string }> }>;
      keys: Array<{ hint: string; type: string; revoked: boolean }>;
    }>();
    expect(body).toMatchObject({ slug: 'shop', kind: 'backend', project: 'default', revision: expect.any(Number) });
    expect(body.configs['db.host']).toBe('localhost');
    expect(body.flags['new-checkout']).toMatchObject({ is_enabled: true, is_active: expect.any(Boolean) });
    expect(body.secrets['tls.client_pem']).toEqual({
      type: 'file',
      versions: [
        { version: 1, created_at: expect.any(String) },
        { version: 2, created_at: expect.any(String) },
      ],
    });
    expect(body.keys.map((k) => k.type).sort()).toEqual(['public', 'secret', 'secret']);
    for (const value of [...Object.values(TEST_SECRET_VALUES), ...Object.values(TEST_KEYS)]) {
      expect(answer.text).not.toContain(value);
    }
    // Outside the scope: 404, as for a missing service; without read: 403.
    expect((await call(server, { path: '/admin/v1/services/other', admin: reader })).status).toBe(404);
    const writer = await token('writer', ['write']);
    expect((await call(server, { path: '/admin/v1/services/shop', admin: writer })).status).toBe(403);
  });
});
