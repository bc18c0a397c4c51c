import {
  LocalServerError,
  startLocalServer,
  startVaneServer,
  VaneServerError,
  type LocalServer,
  type LocalServerErrorCode,
  type LocalServerOptions,
  type LocalServerSeed,
  type VaneServer,
  type VaneServerErrorCode,
  type VaneServerOptions,
  type VaneServerSeed,
} from '../src/index.js';
import { TEST_KEYS, testSeed } from '../src/testing/index.js';
import { call } from './support/http-client.js';

describe('the deprecated LocalServer* names', () => {
  it('start the same server as the VaneServer* names', async () => {
    expect(startLocalServer).toBe(startVaneServer);
    const seed: LocalServerSeed = testSeed();
    const options: LocalServerOptions = { seed };
    const server: LocalServer = await startLocalServer(options);
    try {
      const same: VaneServer = server;
      const sync = await call(same, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret });
      expect(sync.status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('name the same error class, so instanceof answers alike', async () => {
    expect(LocalServerError).toBe(VaneServerError);
    const server = await startVaneServer({ seed: testSeed() });
    try {
      let caught: unknown;
      try {
        server.secretKey('no-such-service');
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(LocalServerError);
      expect(caught).toBeInstanceOf(VaneServerError);
      const code: LocalServerErrorCode = (caught as LocalServerError).code;
      expect(code).toBe('VANE_LOCAL_NOT_FOUND');
    } finally {
      await server.close();
    }
  });

  it('are the same types as the new names, both ways', () => {
    const seed: VaneServerSeed = testSeed();
    const asOld: LocalServerOptions = { seed } satisfies VaneServerOptions;
    const asNew: VaneServerOptions = asOld;
    const codes: VaneServerErrorCode[] = ['VANE_LOCAL_SEED_INVALID' satisfies LocalServerErrorCode];
    expect(asNew.seed).toBe(seed);
    expect(codes).toEqual(['VANE_LOCAL_SEED_INVALID']);
  });
});
