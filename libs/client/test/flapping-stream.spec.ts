import { VaneClient } from '../src/index.js';
import { FakeTransport, MemoryLogger, json, type FakeResponse } from './helpers/fake-transport.js';
import { ManualTimers } from './helpers/manual-timers.js';

/**
 * Ten minutes of a stream that is accepted, sends `resync`, and is cut at
 * once (what a buffering corporate proxy does), on hand-driven time. Before
 * `streamHealthyMs` each open reset the error count: about one reconnect a
 * second, forever, with `connected` true.
 */
function flappingService(): { transport: FakeTransport; streams: () => number } {
  const snapshot = { service: { slug: 'shop', kind: 'backend' }, revision: 3, configs: { a: 1 }, flags: {} };
  const transport = new FakeTransport((req): FakeResponse => {
    const path = new URL(req.url).pathname;
    if (path === '/v1/sync') return json(200, snapshot, { etag: '"r3"' });
    return {
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      body: 'id: 3\nevent: resync\ndata: {"revision": 3}\n\n',
    };
  });
  return { transport, streams: () => transport.to('/v1/stream').length };
}

it('a flapping stream: a handful of attempts in 10 minutes, polling with connected false in between', async () => {
  const { transport, streams } = flappingService();
  const timers = new ManualTimers();
  const client = await VaneClient.create({
    baseUrl: 'https://shop.vane.example',
    apiKey: 'svs_unit_test_secret_key_0001',
    transport,
    timers,
    clock: timers,
    random: () => 0,
    logger: new MemoryLogger(),
  });
  const connectedAt: number[] = [];
  for (let second = 0; second < 600; second++) {
    await timers.advance(1000);
    if (client.connected) connectedAt.push(second);
  }
  // Opens at 0 s, 1 s and 3 s (backoff 1 s, 2 s), then once per 60 s cooldown (63 s … 543 s): 3 + 9.
  expect(streams()).toBe(12);
  expect(client.status.mode).toBe('polling');
  // `connected` holds through the first failures (seconds 1 to 3) and never comes back for good.
  expect(connectedAt).toEqual([0, 1, 2]);
  await client.close();
  expect(timers.pendingCount).toBe(0);
});
