import { request } from 'node:http';
import { startVaneServer, type VaneServer } from '@vane/server';
import { TEST_KEYS, testSeed } from '@vane/server/testing';
import { describeWithPrometheus, startPrometheus, type TestPrometheus } from './support/prometheus.js';

/** Opens a raw `/v1/stream` on the server; resolves once its answer's head is in. */
function openStream(server: VaneServer): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path: '/v1/stream',
        setHost: false,
        headers: { host: `shop.localhost:${server.port}`, 'x-service-api-key': TEST_KEYS.shopSecret },
      },
      (res) => {
        res.resume();
        resolve(() => req.destroy());
      },
    );
    req.on('error', reject);
    req.end();
  });
}

// A real Prometheus scrapes the server's ops listener, as a platform team's would;
// the test reads the series back through Prometheus's query API.
describeWithPrometheus("the server's /metrics in a real Prometheus", () => {
  let server: VaneServer;
  let prometheus: TestPrometheus | undefined;
  afterEach(async () => {
    await prometheus?.stop();
    await server?.close();
  }, 30_000);

  it('scrapes open streams by service, HTTP requests by route, store writes and the fleet', async () => {
    server = await startVaneServer({ seed: testSeed(), opsListen: '127.0.0.1:0', replicaId: 'replica-under-test' });
    const closers = await Promise.all([openStream(server), openStream(server)]);
    server.admin.setConfig('shop', 'db.host', 'scraped');
    prometheus = await startPrometheus([new URL(server.opsUrl).host]);

    await prometheus.until('up', (s) => s.length === 1 && s[0]!.value === 1, 'the target to be up', 30_000);
    await prometheus.until(
      'vane_streams_open{service="shop"}',
      (s) => s[0]?.value === 2,
      'two open streams of shop',
      30_000,
    );
    // Prometheus's own scrapes are requests of the route "metrics", counted by status.
    await prometheus.until(
      'vane_http_requests_total{route="metrics",method="GET",status="200"}',
      (s) => (s[0]?.value ?? 0) >= 1,
      'the scrapes counted',
      30_000,
    );
    const writes = await prometheus.query('vane_store_write_seconds_count');
    expect(writes[0]?.value).toBe(1);
    const replicas = await prometheus.query('vane_fleet_replica_streams');
    expect(replicas).toEqual([
      expect.objectContaining({ metric: expect.objectContaining({ replica: 'replica-under-test' }), value: 2 }),
    ]);
    // Label values are a fixed set: no path, no key, ever.
    const labels = await prometheus.query('count by (route) (vane_http_requests_total)');
    for (const sample of labels)
      expect(sample.metric['route']).toMatch(
        /^(sync|stream|evaluate_ab|token_exchange|secrets|admin|console|healthz|readyz|metrics|other)$/,
      );
    for (const close of closers) close();
  }, 90_000);
});
