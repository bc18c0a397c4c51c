import { startVaneServer, type VaneServer } from '../src/index.js';
import { call } from './support/http-client.js';
import { TEST_KEYS, testSeed } from '../src/testing/index.js';

// A newcomer's first mistake: the API key sent as `Authorization: Bearer svs_…`, as most APIs take one.
describe('an API key sent as Authorization: Bearer', () => {
  let server: VaneServer;

  beforeAll(async () => {
    server = await startVaneServer({ seed: testSeed() });
  });
  afterAll(() => server.close());

  it.each([TEST_KEYS.shopSecret, TEST_KEYS.shopPublic])(
    'answers 401 naming the X-Service-API-Key header, never the key (%#)',
    async (key) => {
      const answer = await call(server, {
        path: '/v1/sync',
        slug: 'shop',
        headers: { authorization: `Bearer ${key}` },
      });
      expect(answer.status).toBe(401);
      const body = answer.json<{ error: string; message: string }>();
      expect(body.error).toBe('unauthorized');
      expect(body.message).toContain('X-Service-API-Key');
      expect(answer.text).not.toContain(key);
    },
  );

  it('still answers an invalid session token as one', async () => {
    const answer = await call(server, {
      path: '/v1/sync',
      slug: 'shop',
      headers: { authorization: 'Bearer eyJnot.a.jwt' },
    });
    expect(answer.status).toBe(401);
    expect(answer.json<{ message: string }>().message).toMatch(/session token is not valid/);
  });
});
