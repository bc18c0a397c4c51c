// One revision per request under load (#21): its own file, in the slow suite (`npm run test:slow`).
import { createVane, type VaneExpress } from '@vane/express';
import { adapterSeed } from '@vane/test-harness';
import express from 'express';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  expectOneRevisionPerRequest,
  heapUsedAfterGc,
  loadWhileChanging,
  startChurnServer,
  type ChurnServer,
} from '../../../test/support/churn.js';

describe('one revision per request under load (Express 5)', () => {
  let server: ChurnServer;
  let vane: VaneExpress;
  let http: Server;
  afterEach(async () => {
    await new Promise<void>((resolve) => http.close(() => resolve()));
    await vane.close();
    await server.close();
  });

  it('10,000 requests while the values change every millisecond: each reads one revision; heap flat; no old version file left', async () => {
    server = await startChurnServer(adapterSeed(), 'shop');
    vane = await createVane({
      baseUrl: server.baseUrl,
      apiKey: server.secretKey,
      logger: { warn: () => undefined, error: () => undefined },
    });
    const a = express();
    a.use(vane.middleware());
    let inconsistent = 0;
    a.get('/pair', vane.requireFlag('new-checkout'), (req, res) => {
      // Through the client (as a service would) and through req.vane: one revision for both.
      const read = (): string =>
        `${vane.client.config('db.pool.max')} ${req.vane.config('db.host')} ${readFileSync(req.vane.requireSecretFile('tls.client_pem'), 'utf8')}`;
      const first = read();
      setImmediate(() => {
        if (read() !== first) inconsistent++;
        res.end();
      });
    });
    http = a.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => http.once('listening', resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/pair`;
    const client = vane.client;
    // Warm-up (JIT, pools, the first version files), then the heap at a quiet point.
    expect(await loadWhileChanging(server, url, client, 1_000)).toMatchObject({ ok: 1_000, failed: 0 });
    const before = heapUsedAfterGc();
    const report = await loadWhileChanging(server, url, client, 10_000);
    const after = heapUsedAfterGc();
    await expectOneRevisionPerRequest('Express', client, report, inconsistent, { before, after });
  }, 600_000);
});
