import { connect } from 'node:net';
import fc from 'fast-check';
import { startVaneServer, type ConfigValue, type VaneServer } from '../src/index.js';
import { admin, call, openStream } from './support/http-client.js';
import { DEFAULT_WAIT_MS, TEST_KEYS, testSeed, until, withTimeout } from '../src/testing/index.js';

describe('bad requests never crash the server or corrupt its state', () => {
  let server: VaneServer;
  beforeEach(async () => {
    server = await startVaneServer({ seed: testSeed() });
  });
  afterEach(() => server.close());

  const syncBody = async () => (await call(server, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret })).text;

  it('answers 413 to a body over 1 MiB, and changes nothing', async () => {
    const before = await syncBody();
    const huge = JSON.stringify({ value: 'x'.repeat(1024 * 1024) });
    const answer = await call(server, {
      method: 'PUT',
      path: '/v1/secrets/big',
      slug: 'shop',
      key: TEST_KEYS.shopSecret,
      body: huge,
    });
    expect(answer.status).toBe(413);
    expect(answer.json()['error']).toBe('payload_too_large');
    const viaAdmin = await admin(server, 'PUT', '/services/shop/configs/big.value', huge);
    expect(viaAdmin.status).toBe(413);
    expect(await syncBody()).toBe(before);
  });

  it('answers 400 to a body that is not JSON without quoting it (it may be the secret being written)', async () => {
    for (const body of [
      '{"value": rk_live_SECRET_VALUE}',
      '{"value": "rk_live_SECRET_VALUE" "type": "text"}',
      '{"value": "rk_live_SECRET_VALUE',
    ]) {
      const answer = await call(server, {
        method: 'PUT',
        path: '/v1/secrets/s',
        slug: 'shop',
        key: TEST_KEYS.shopSecret,
        body,
      });
      expect(answer.status).toBe(400);
      expect(answer.json()['error']).toBe('invalid_request');
      expect(answer.json()['message']).toMatch(/^the request body is not valid JSON \(at line 1, column \d+: .+\)$/);
      expect(answer.text).not.toContain('rk_live');
      const viaAdmin = await admin(server, 'PUT', '/services/shop/configs/c', body);
      expect(viaAdmin.status).toBe(400);
      expect(viaAdmin.text).not.toContain('rk_live');
    }
  });

  it('accepts a body of exactly 1 MiB', async () => {
    const padding = 1024 * 1024 - JSON.stringify({ value: '' }).length;
    const answer = await admin(
      server,
      'PUT',
      '/services/shop/configs/big.value',
      JSON.stringify({ value: 'x'.repeat(padding) }),
    );
    expect(answer.status).toBe(200);
  });

  it('answers 413 to a chunked body that grows past 1 MiB', async () => {
    const socket = connect(server.port, '127.0.0.1');
    socket.on('error', () => undefined);
    const answer = withTimeout(
      new Promise<string>((resolve) => {
        let text = '';
        socket.on('data', (c) => {
          text += c.toString();
          if (text.includes('\r\n\r\n')) resolve(text);
        });
      }),
      'the 413',
    );
    socket.write(
      `PUT /admin/v1/services/shop/configs/big HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.adminToken}\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    const chunk = 'a'.repeat(64 * 1024);
    for (let i = 0; i < 20 && !socket.destroyed; i++) socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    expect(await answer).toMatch(/^HTTP\/1\.1 413/);
    socket.destroy();
  });

  it('survives garbage on the wire', async () => {
    for (const garbage of [
      '\x00\x01\x02 nonsense\r\n\r\n',
      'GET / HTTP/9.9\r\n\r\n',
      'GET /v1/sync HTTP/1.1\r\nHost: shop.localhost\r\nContent-Length: -5\r\n\r\n',
    ]) {
      const socket = connect(server.port, '127.0.0.1');
      socket.on('error', () => undefined);
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.resume();
      socket.end(garbage);
      await withTimeout(closed, 'the server to close a garbage connection');
    }
    expect((await call(server, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret })).status).toBe(200);
  });

  it('answers any JSON body on any write route with 2xx or 4xx, and the snapshot stays valid', async () => {
    const routes = [
      ['PUT', '/admin/v1/services/shop/configs/fuzz.key'],
      ['PUT', '/admin/v1/services/shop/flags/fuzz-flag'],
      ['PUT', '/admin/v1/services/shop/secrets/fuzz.secret'],
      ['PUT', '/admin/v1/tenant'],
      ['PUT', '/admin/v1/services/fuzz'],
      ['POST', '/admin/v1/services/shop/keys'],
      ['PUT', '/v1/secrets/fuzz.secret'],
      ['POST', '/v1/flags/evaluate-ab'],
    ] as const;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), fc.jsonValue({ maxDepth: 3 }), async ([method, path], body) => {
        const answer = await call(server, {
          method,
          path,
          slug: 'shop',
          key: TEST_KEYS.shopSecret,
          admin: path.startsWith('/admin'),
          body: JSON.stringify(body),
        });
        expect(answer.status).toBeGreaterThanOrEqual(200);
        expect(answer.status).toBeLessThan(500);
        // Fuzzed tenant settings may lock the caller out; put them back.
        server.admin.setTenant({
          overdue_days: 0,
          quarantined_until: null,
          ab_addon: true,
          write_rate_per_minute: 100_000,
        });
        const sync = await call(server, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret });
        expect(sync.status).toBe(200);
        const snapshot = sync.json<{ configs: Record<string, unknown> }>();
        for (const value of Object.values(snapshot.configs)) {
          expect(typeof value === 'object' && value !== null && !Array.isArray(value)).toBe(false);
        }
      }),
      { numRuns: 150, interruptAfterTimeLimit: DEFAULT_WAIT_MS * 4 },
    );
  });

  const nested = (levels: number): string => `${'['.repeat(levels)}1${']'.repeat(levels)}`;

  it.each([
    ['PUT', '/admin/v1/services/shop/configs/deep.value', (deep: string) => `{"value": ${deep}}`],
    ['PUT', '/admin/v1/services/shop/flags/deep-flag', (deep: string) => `{"is_enabled": true, "ab": ${deep}}`],
    ['PUT', '/v1/secrets/deep.secret', (deep: string) => `{"value": ${deep}}`],
    ['POST', '/v1/flags/evaluate-ab', (deep: string) => `{"keys": ${deep}, "user_id": "u"}`],
  ] as const)(
    'answers 400 to a body nested 2,000 levels deep (%s %s), and keeps serving',
    async (method, path, body) => {
      const answer = await call(server, {
        method,
        path,
        slug: 'shop',
        key: TEST_KEYS.shopSecret,
        admin: path.startsWith('/admin'),
        body: body(nested(2000)),
      });
      expect(answer.status).toBe(400);
      expect(answer.json()).toEqual({
        error: 'invalid_request',
        message: 'the request body nests arrays and objects more than 64 levels deep',
      });
      const shallow = await admin(server, 'PUT', '/services/shop/configs/deep.value', {
        value: JSON.parse(nested(60)),
      });
      expect(shallow.status).toBe(200);
    },
  );

  it('refuses a seed nested too deep with a seed error, not a stack overflow', async () => {
    const seed = { services: { shop: { configs: { deep: JSON.parse(nested(5000)) as ConfigValue } } } };
    await expect(startVaneServer({ seed })).rejects.toThrow(
      'seed: arrays and objects are nested more than 64 levels deep',
    );
  });

  it('logs a client that hangs up mid-request at debug, never as an internal error', async () => {
    const lines: Array<[string, string]> = [];
    const logger = {
      debug: (m: string) => lines.push(['debug', m]),
      info: (m: string) => lines.push(['info', m]),
      warn: (m: string) => lines.push(['warn', m]),
      error: (m: string) => lines.push(['error', m]),
    };
    const logged = await startVaneServer({ seed: testSeed(), logger });
    // What a start logs depends on the store (a sealed one names its root key): only the hang-up's lines count.
    lines.length = 0;
    try {
      const socket = connect(logged.port, '127.0.0.1');
      socket.on('error', () => undefined);
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      // `Expect: 100-continue`: the server says "100 Continue" as it hands the request to its handler.
      const handling = new Promise<void>((resolve) => socket.once('data', () => resolve()));
      socket.write(
        `PUT /admin/v1/services/shop/configs/a HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${logged.adminToken}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n',
      );
      await withTimeout(handling, 'the 100 Continue');
      socket.write('{"value":');
      socket.destroy();
      await until(() => lines.length > 0, 'the debug line of the abandoned request');
      expect(lines).toEqual([['debug', 'client ended PUT /admin/v1/services/shop/configs/a before its answer']]);
    } finally {
      await logged.close();
    }
  });
});

describe('header and request timeouts', () => {
  let server: VaneServer;
  beforeEach(async () => {
    server = await startVaneServer({
      seed: testSeed(),
      headersTimeoutMs: 200,
      requestTimeoutMs: 400,
      pingIntervalMs: 50,
    });
  });
  afterEach(() => server.close());

  /** Sends `text` and resolves with what the server answered before it closed the connection. */
  function halfSend(text: string): Promise<string> {
    const socket = connect(server.port, '127.0.0.1');
    socket.on('error', () => undefined);
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.write(text);
    return withTimeout(
      new Promise<string>((resolve) => socket.once('close', () => resolve(answer))),
      'the server to close a half-sent request',
    );
  }

  it('closes a connection whose headers never end, with 408', async () => {
    expect(await halfSend('GET /v1/sync HTTP/1.1\r\nHost: shop.localhost\r\nX-Slow: ')).toMatch(/^HTTP\/1\.1 408/);
  });

  it('closes a connection whose body never ends, with 408', async () => {
    const head = `PUT /admin/v1/services/shop/configs/a HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.adminToken}\r\nContent-Length: 50\r\n\r\n{"va`;
    expect(await halfSend(head)).toMatch(/^HTTP\/1\.1 408/);
  });

  it('leaves open streams alone: they outlive both limits', async () => {
    const reader = await openStream(server, { slug: 'shop', key: TEST_KEYS.shopSecret });
    // Twelve pings at 50 ms apart: well past the 400 ms request limit.
    await reader.until((r) => r.pings >= 12, 'twelve pings');
    expect(reader.ended).toBe(false);
    server.admin.setConfig('shop', 'db.host', 'still-streaming');
    await reader.find((e) => e.data.includes('still-streaming'), 'a patch after the limits');
    reader.close();
  });
});
