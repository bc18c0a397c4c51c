import { startVaneServer, type VaneServer } from '../src/index.js';
import { admin, call } from './support/http-client.js';
import { TEST_KEYS, testSeed } from '../src/testing/index.js';

describe('browsers (CORS) on /v1/', () => {
  let server: VaneServer;
  beforeEach(async () => {
    server = await startVaneServer({ seed: testSeed() });
  });
  afterEach(() => server.close());

  it('answers a preflight with 204 and the methods and headers a client sends', async () => {
    const answer = await call(server, {
      method: 'OPTIONS',
      path: '/v1/sync',
      slug: 'web',
      headers: {
        origin: 'http://localhost:3000',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'x-service-api-key',
      },
    });
    expect(answer.status).toBe(204);
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    expect(answer.headers['access-control-allow-headers']).toMatch(/X-Service-API-Key/);
    expect(answer.headers['access-control-allow-headers']).toMatch(/If-None-Match/);
    expect(answer.headers['access-control-allow-methods']).toMatch(/GET/);
  });

  it('lets a page read the snapshot, its ETag and error bodies with a public key', async () => {
    const ok = await call(server, {
      path: '/v1/sync',
      slug: 'web',
      key: TEST_KEYS.webPublic,
      headers: { origin: 'http://localhost:3000' },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe('*');
    expect(ok.headers['access-control-expose-headers']).toMatch(/ETag/);
    const refused = await call(server, {
      path: '/v1/sync',
      slug: 'web',
      key: 'svp_wrong',
      headers: { origin: 'http://localhost:3000' },
    });
    expect(refused.status).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe('*');
  });

  it('does not open the admin API to browsers', async () => {
    const answer = await admin(server, 'GET', '/services');
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
  });
});
