import { connect } from 'node:net';
import { startVaneServer, type VaneServer } from '../src/index.js';
import type { ReplicaInfo } from '../src/fleet/fleet-view.js';
import { TEST_KEYS, testSeed, until, withTimeout } from '../src/testing/index.js';
import { call, openStream, type StreamReader } from './support/http-client.js';

const WINDOW_MS = 2000;

/** The delay a `goaway` event asked for. */
const delayOf = (reader: StreamReader): number => {
  const goaway = reader.events.find((e) => e.event === 'goaway');
  return (JSON.parse(goaway!.data) as { reconnect_in_ms: number }).reconnect_in_ms;
};

/** Whether a new TCP connection to `port` is refused (the listener is closed). */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

describe('drain (PROTOCOL §6 goaway)', () => {
  let server: VaneServer;
  afterEach(() => server?.close());

  it('turns unready, sends every stream goaway spread over the window, bounces new streams, finishes in-flight writes', async () => {
    server = await startVaneServer({ seed: testSeed(), drainWindowMs: WINDOW_MS, drainTimeoutMs: 20_000 });
    const streams = await Promise.all(
      Array.from({ length: 8 }, () => openStream(server, { slug: 'shop', key: TEST_KEYS.shopSecret })),
    );
    await Promise.all(streams.map((s) => s.event(1)));
    // A write in flight: its headers are in, its body is not.
    const write = connect(server.port, '127.0.0.1');
    let answer = '';
    write.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    const body = JSON.stringify({ value: 'written-while-draining' });
    write.write(
      `PUT /admin/v1/services/shop/configs/db.host HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.adminToken}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    await until(() => server.stats().streams === 8, 'the streams to register');

    const drained = server.drain();
    await Promise.all(streams.map((s) => s.waitForEnd()));
    for (const stream of streams) {
      expect(stream.events.map((e) => e.event)).toEqual(['resync', 'goaway']);
      expect(stream.events[1]!.id).toBeUndefined(); // no id: the client keeps its Last-Event-ID
      expect(delayOf(stream)).toBeGreaterThanOrEqual(0);
      expect(delayOf(stream)).toBeLessThanOrEqual(WINDOW_MS / 2);
    }
    const readiness = await call(server, { path: '/readyz' });
    expect(readiness.status).toBe(503);
    expect(readiness.json<{ checks: unknown[] }>().checks).toContainEqual({
      name: 'draining',
      ok: false,
      detail: 'the server is draining its streams',
    });
    // A stream opened now is told at once to come back after this replica is gone.
    const late = await openStream(server, { slug: 'shop', key: TEST_KEYS.shopSecret });
    await late.waitForEnd();
    expect(late.status).toBe(200);
    expect(late.events.map((e) => e.event)).toEqual(['goaway']);
    // Told to come back once this server is surely gone: after the window and the drain timeout.
    expect(delayOf(late)).toBeGreaterThan(20_000 - 2 * WINDOW_MS);
    expect(delayOf(late)).toBeLessThanOrEqual(WINDOW_MS + 20_000 + WINDOW_MS);

    // After the window the listener closes; the write in flight still gets its answer.
    await until(() => refused(server.port), 'the listener to close after the window', { timeoutMs: 20_000 });
    // Written without a half-close: Node's HTTP server takes a client's FIN as an abort of what it has not answered.
    const answered = new Promise<void>((resolve) => write.on('data', () => answer.includes('\r\n\r\n') && resolve()));
    write.write(body);
    await withTimeout(answered, 'the answer to the write in flight', { timeoutMs: 20_000 });
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    write.destroy();
    await withTimeout(drained, 'the drain to finish', { timeoutMs: 20_000 });
    expect(server.stats().streams).toBe(0);
  }, 60_000);
});

describe('rebalance', () => {
  let server: VaneServer;
  afterEach(() => server?.close());

  it('a replica above its fleet’s mean sends goaway to its oldest streams down to its share, at most a batch, and waits for them to land', async () => {
    const peers: readonly ReplicaInfo[] = [
      { id: 'peer-a', streams: 0, revisions: {}, seenAt: Date.now() },
      { id: 'peer-b', streams: 0, revisions: {}, seenAt: Date.now() },
    ];
    server = await startVaneServer({
      seed: testSeed(),
      fleetView: (self) => ({
        replicas: () => [
          { id: self.id, streams: self.streams(), revisions: self.revisions(), seenAt: Date.now() },
          ...peers,
        ],
      }),
      rebalance: { intervalMs: 0, tolerance: 0.1, batch: 4, spreadMs: 3000, minStreamAgeMs: 0 },
    });
    const streams = await Promise.all(
      Array.from({ length: 10 }, () => openStream(server, { slug: 'shop', key: TEST_KEYS.shopSecret })),
    );
    await Promise.all(streams.map((s) => s.event(1)));
    await until(() => server.stats().streams === 10, 'the streams to register');
    // The first look only learns the fleet's total (a mean from one look may be a burst's).
    expect(await server.rebalance()).toBe(0);
    // Mean 10/3, share 4: 6 over, but at most 4 this time.
    expect(await server.rebalance()).toBe(4);
    // Until the shed streams can have landed elsewhere (spread plus settle), it decides nothing more.
    expect(await server.rebalance()).toBe(0);
    await until(() => server.stats().streams === 6, 'the shed streams to close');
    // The server forgets a stream before its client reads the end: wait for the clients too.
    await until(() => streams.filter((s) => s.ended).length >= 4, 'the clients to see their streams end');
    const shed = streams.filter((s) => s.ended);
    expect(shed).toHaveLength(4);
    for (const stream of shed) expect(delayOf(stream)).toBeLessThanOrEqual(3000);
    // The oldest streams go first; the newest stay.
    expect(streams.slice(0, 4).every((s) => s.ended)).toBe(true);
    const metrics = (await call(server, { path: '/metrics' })).text;
    expect(metrics).toContain('vane_goaway_sent_total{reason="rebalance"} 4');
    for (const stream of streams) stream.close();
  });
});
