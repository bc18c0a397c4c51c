import { Client } from 'pg';
import { describeWithPostgres } from '../../../test/support/postgres.js';
import type { LogFields } from '../src/observability/logger.js';
import { startVaneServer, type VaneServer } from '../src/index.js';
import { testSeed, until } from '../src/testing/index.js';
import { admin, call } from './support/http-client.js';
import { usePostgresAndTempDir } from './support/postgres-and-temp-dir.js';

// Two replicas and a database on a loaded two-core machine.
jest.setTimeout(60_000);

/** The root key both replicas share. */
const ROOT_KEY = Buffer.alloc(32, 6).toString('base64');

describeWithPostgres('drift: a replica that cannot read the store', () => {
  const setup = usePostgresAndTempDir('vane-fleet-unreadable-');

  it('reports not ready (with the reason), logs drift and sets the metric after a few refused checks; recovers alone', async () => {
    const url = await setup.pg.createDatabase('unreadable');
    // B connects as a role of its own, with the owner's rights on the store's tables, so one GRANT can be taken
    // from B alone.
    const owner = new Client({ connectionString: url });
    await owner.connect();
    const servers: VaneServer[] = [];
    try {
      await setup.pg.query(`CREATE ROLE replica_b LOGIN PASSWORD 'pw-replica-b'`);
      const common = {
        seed: testSeed(),
        adminToken: 'fleet-admin-token',
        rootKey: ROOT_KEY,
        storeCheckIntervalMs: 150,
      };
      servers.push(await startVaneServer({ ...common, store: url, replicaId: 'a' }));
      await owner.query('GRANT USAGE, CREATE ON SCHEMA public TO replica_b');
      await owner.query('GRANT ALL ON ALL TABLES IN SCHEMA public TO replica_b');
      const events: Array<{ level: string; message: string; fields?: LogFields }> = [];
      const logger = {
        info: (message: string, fields?: LogFields) => events.push({ level: 'info', message, fields }),
        warn: (message: string, fields?: LogFields) => events.push({ level: 'warn', message, fields }),
        error: (message: string, fields?: LogFields) => events.push({ level: 'error', message, fields }),
      };
      const urlB = url.replace(/\/\/[^@]+@/, '//replica_b:pw-replica-b@');
      servers.push(await startVaneServer({ ...common, store: urlB, replicaId: 'b', logger }));
      const [a, b] = servers as [VaneServer, VaneServer];
      expect((await call(b, { path: '/readyz' })).status).toBe(200);

      await owner.query('REVOKE SELECT ON vane_changes FROM replica_b');
      // A keeps committing; B cannot read what it commits.
      expect((await admin(a, 'PUT', '/services/shop/configs/db.pool.max', { value: 77 })).status).toBe(200);
      let readyz = await call(b, { path: '/readyz' });
      await until(async () => (readyz = await call(b, { path: '/readyz' })).status === 503, 'B not ready', {
        timeoutMs: 20_000,
        intervalMs: 25,
      });
      expect(readyz.json()).toMatchObject({
        ready: false,
        checks: expect.arrayContaining([
          { name: 'drift', ok: false, detail: expect.stringMatching(/^cannot read the store: .*permission denied/) },
        ]),
      });
      expect(events.filter((e) => e.fields?.['event'] === 'drift')).toEqual([
        expect.objectContaining({ level: 'warn', message: expect.stringContaining('cannot read the store') }),
      ]);
      await until(
        async () =>
          /vane_service_drift_seconds\{service="shop"\} (0\.\d*[1-9]|[1-9])/.test((await b.metrics.scrape()).body),
        'the drift metric to count',
        { timeoutMs: 20_000, intervalMs: 50 },
      );
      // A, which reads, stays ready.
      expect((await call(a, { path: '/readyz' })).status).toBe(200);

      await owner.query('GRANT SELECT ON vane_changes TO replica_b');
      await until(async () => (await call(b, { path: '/readyz' })).status === 200, 'B ready again', {
        timeoutMs: 20_000,
        intervalMs: 25,
      });
      await until(() => b.revision('shop') === a.revision('shop'), 'B to catch up with A');
      expect((await b.metrics.scrape()).body).toContain('vane_service_drift_seconds{service="shop"} 0');
    } finally {
      await Promise.all(servers.map((server) => server.close()));
      await owner.end();
    }
  });
});
