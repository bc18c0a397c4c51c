import { startVaneServer, type VaneServer } from '../src/index.js';
import { admin, call, openStream, type Call } from './support/http-client.js';
import { TEST_KEYS, testSeed } from '../src/testing/index.js';

// PROTOCOL §3: every answer of the service under /v1/ carries `Vane-Protocol: 1`, errors included,
// so a client can tell "this service does not know that slug" from "no Vane service answers here".
describe('the Vane-Protocol header', () => {
  let server: VaneServer;
  beforeAll(async () => {
    server = await startVaneServer({ seed: testSeed() });
  });
  afterAll(() => server.close());

  const shop = (spec: Omit<Call, 'slug' | 'key'> & { key?: string }): Call => ({
    slug: 'shop',
    key: TEST_KEYS.shopSecret,
    ...spec,
  });

  it.each<[string, () => Call, number]>([
    ['a snapshot', () => shop({ path: '/v1/sync' }), 200],
    ['a wrong key', () => shop({ path: '/v1/sync', key: 'svs_wrong' }), 401],
    ['no key', () => ({ path: '/v1/sync', slug: 'shop' }), 401],
    ['an unknown slug', () => ({ path: '/v1/sync', slug: 'nobody', key: TEST_KEYS.shopSecret }), 404],
    ['an unknown route under /v1/', () => shop({ path: '/v1/nothing-here' }), 404],
    ['a path outside /v1/', () => shop({ path: '/sync' }), 404],
    ['a malformed body', () => shop({ method: 'POST', path: '/v1/flags/evaluate-ab', body: '{' }), 400],
    [
      'an A/B evaluation',
      () => shop({ method: 'POST', path: '/v1/flags/evaluate-ab', body: { keys: ['beta'], user_id: 'u' } }),
      200,
    ],
    ['a preflight', () => ({ method: 'OPTIONS', path: '/v1/sync', slug: 'web' }), 204],
  ])('is on %s (%i)', async (_what, spec, status) => {
    const answer = await call(server, spec());
    expect(answer.status).toBe(status);
    expect(answer.headers['vane-protocol']).toBe('1');
  });

  it('is on a 304 and on a stream', async () => {
    const first = await call(server, shop({ path: '/v1/sync' }));
    const again = await call(
      server,
      shop({ path: '/v1/sync', headers: { 'if-none-match': String(first.headers.etag) } }),
    );
    expect(again.status).toBe(304);
    expect(again.headers['vane-protocol']).toBe('1');
    const stream = await openStream(server, { slug: 'shop', key: TEST_KEYS.shopSecret });
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers['vane-protocol']).toBe('1');
    } finally {
      stream.close();
    }
  });

  it('is readable by a page on another origin', async () => {
    const answer = await call(server, { path: '/v1/sync', slug: 'web', key: TEST_KEYS.webPublic });
    expect(answer.headers['access-control-expose-headers']).toMatch(/Vane-Protocol/);
  });

  it('is not on the admin API, which is the server’s own and not a service’s', async () => {
    const answer = await admin(server, 'GET', '/services');
    expect(answer.status).toBe(200);
    expect(answer.headers['vane-protocol']).toBeUndefined();
  });
});
