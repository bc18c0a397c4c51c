import { startVaneServer, type VaneServer } from '@vane/server';
import {
  adminPut,
  testSeed,
  waitForChange,
  waitForRevision,
  waitForStatus,
  WaitTimeoutError,
} from '@vane/server/testing';
import { FaultProxy, rawResponse } from '@vane/test-harness';
import { VaneClient } from '../src/index.js';

// docs/testing-with-the-server.md's "Testing your app against the local server", run as written:
// the waits of @vane/server/testing take a VaneClient as it is.
let server: VaneServer;
let proxy: FaultProxy | undefined;
const clients: VaneClient[] = [];
const quiet = { warn: () => undefined, error: () => undefined };

beforeEach(async () => {
  server = await startVaneServer({ seed: testSeed(), port: 0 });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await proxy?.close();
  proxy = undefined;
  await server.close();
});

it('waits on the client’s own events: the revision a change made, the change itself, the stream', async () => {
  const client = await VaneClient.create({
    baseUrl: server.baseUrl('shop'),
    apiKey: server.secretKey('shop'),
    logger: quiet,
  });
  clients.push(client);
  // #region testing-waits
  await waitForStatus(client, (s) => s.connected, { what: 'the stream to connect' });

  // In process: the admin call returns the revision it made.
  const revision = server.admin.setFlag('shop', 'beta', { is_enabled: true });
  await waitForRevision(client, revision);
  expect(client.flag('beta')).toBe(true);

  // Over HTTP, as the console does; subscribe before making the change.
  const changed = waitForChange(client, (e) => e.key === 'db.pool.max');
  await adminPut(server, 'services/shop/configs/db.pool.max', { value: 25 });
  expect((await changed).newValue).toBe(25);
  // #endregion testing-waits
});

it('a wait that runs out names what it waited for', async () => {
  const client = await VaneClient.create({
    baseUrl: server.baseUrl('shop'),
    apiKey: server.secretKey('shop'),
    logger: quiet,
    stream: false,
  });
  clients.push(client);
  const error = await waitForRevision(client, client.revision + 1, { timeoutMs: 50 }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(WaitTimeoutError);
  expect((error as Error).message).toMatch(/^timed out after 50 ms waiting for revision \d+/);
});

it('a FaultProxy between the client and the server breaks the service on purpose', async () => {
  proxy = await FaultProxy.start(server.port);
  const client = await VaneClient.create({
    baseUrl: proxy.baseUrl('shop'),
    apiKey: server.secretKey('shop'),
    logger: quiet,
  });
  clients.push(client);
  await waitForStatus(client, (s) => s.connected, { what: 'the stream to connect' });

  proxy.cutStreams(true); // the stream is reset, every reconnect too
  proxy.onRequest((line) =>
    line.startsWith('GET /v1/sync') ? rawResponse(503, '{"error":"unavailable"}') : undefined,
  );
  await expect(client.sync()).rejects.toMatchObject({ status: 503 });
  expect(client.config('db.host')).toBe('localhost'); // the app keeps serving its last snapshot

  proxy.onRequest(undefined);
  proxy.cutStreams(false);
  expect(proxy.count('/v1/sync')).toBeGreaterThanOrEqual(2);
});
