import { startVaneServer, type VaneServer } from '@vane/server';
import { FaultProxy } from '@vane/test-harness';
import { VaneClient } from '../src/index.js';
import { MemoryLogger } from './helpers/fake-transport.js';
import { SHOP_SK, seed } from './helpers/seed.js';

/**
 * A server may close a kept-alive connection at the moment the client reuses
 * it (its idle timeout, a restart, a proxy's idle limit): the request is
 * written, and the connection ends without a byte of answer (undici:
 * `UND_ERR_SOCKET`, "other side closed"). The TCP proxy in front of the local
 * server stands for such a server: told to, it closes the connection a
 * request arrives on, with a FIN and no answer, every time at that instant.
 */
let server: VaneServer;
let proxy: FaultProxy;
let logger: MemoryLogger;
let client: VaneClient;

beforeEach(async () => {
  server = await startVaneServer({ seed: seed(), port: 0 });
  proxy = await FaultProxy.start(server.port);
  logger = new MemoryLogger();
  // No stream: the sync's connection is the one kept alive and reused.
  client = await VaneClient.create({ baseUrl: proxy.baseUrl('shop'), apiKey: SHOP_SK, stream: false, logger });
});

afterEach(async () => {
  await client.close();
  await proxy.close();
  await server.close();
});

/** Closes the connection of the next `times` requests whose line starts with `prefix`, as they arrive. */
function closeNext(prefix: string, times = 1): void {
  let left = times;
  proxy.onRequest((line) => {
    if (left === 0 || !line.startsWith(prefix)) return undefined;
    left--;
    return 'close';
  });
}

const USER = { userId: 'u-8812', attributes: { country: 'DE' } };

describe('a kept-alive connection the server closes as it is reused', () => {
  it('an evaluate-ab call (a pure evaluation) is sent once more, on a new connection: the caller gets its answer', async () => {
    closeNext('POST /v1/flags/evaluate-ab');
    expect({ ...(await client.evaluateAb(['always-on'], USER)) }).toEqual({ 'always-on': true });
    expect(proxy.count('/v1/flags/evaluate-ab')).toBe(2);
    expect(logger.text('warn') + logger.text('error')).toBe('');
  });

  it('a sync (a GET) is sent once more too', async () => {
    const before = proxy.count('/v1/sync'); // the start's
    closeNext('GET /v1/sync');
    await expect(client.sync()).resolves.toMatchObject({ revision: client.revision });
    expect(proxy.count('/v1/sync')).toBe(before + 2);
  });

  it('only once: a second closed connection is the transport error, with the cause', async () => {
    closeNext('POST /v1/flags/evaluate-ab', 2);
    await expect(client.evaluateAb(['always-on'], USER)).rejects.toMatchObject({
      code: 'VANE_TRANSPORT',
      timedOut: false,
      cause: expect.objectContaining({ code: 'UND_ERR_SOCKET' }),
    });
    expect(proxy.count('/v1/flags/evaluate-ab')).toBe(2);
    // Errors are never cached: the next call asks again, and gets its answer.
    expect({ ...(await client.evaluateAb(['always-on'], USER)) }).toEqual({ 'always-on': true });
  });

  it('a secret write is never sent twice: the caller gets the transport error', async () => {
    closeNext('PUT /v1/secrets/');
    await expect(client.setSecret('stripe.api_key', 'sk_live_rotated_000002')).rejects.toMatchObject({
      code: 'VANE_TRANSPORT',
    });
    expect(proxy.requests.filter((r) => r.method === 'PUT')).toHaveLength(1);
  });
});
