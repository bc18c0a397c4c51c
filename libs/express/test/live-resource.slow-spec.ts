import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createVane, keepSecureContextCurrent, tlsCertificate, type VaneExpress } from '@vane/express';
import { startVaneServer, type VaneServer } from '@vane/server';
import { Pool } from 'pg';
import { makeCertificate, type TestCertificate } from '../../../test/support/certificates.js';
import {
  connectionsBecome,
  createRole,
  pgSeed,
  PG_POOL_MAX,
  PG_SERVICE_KEY,
  rotatePasswordUnderLoad,
} from '../../../test/support/pg-rotation.js';
import { describeWithPostgres, startPostgres, type TestPostgres } from '../../../test/support/postgres.js';
import { rotateCertificate, tlsSeed, TLS_SERVICE_KEY } from '../../../test/support/tls-rotation.js';
import { EXPRESS_VERSIONS, type AppFactory } from './support/express-versions.js';

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

describeWithPostgres('a live PostgreSQL pool in an Express app', () => {
  let pg: TestPostgres;

  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);

  afterAll(async () => {
    await pg?.stop();
  }, 30_000);

  describe.each(EXPRESS_VERSIONS)('on %s', (_name, express: AppFactory) => {
    let server: VaneServer;

    beforeEach(async () => {
      await pg.query(`DROP ROLE IF EXISTS app`);
      await createRole(pg);
      server = await startVaneServer({ seed: pgSeed(pg), port: 0 });
    });

    afterEach(async () => {
      await server.close();
    });

    it('is rebuilt on a password rotation under load with no failed request, and disposed of by vane.close()', async () => {
      const lines: string[] = [];
      const logger = {
        info: (m: string) => lines.push(m),
        warn: (m: string) => lines.push(m),
        error: (m: string) => lines.push(m),
      };
      // #region express-live-pool
      const vane = await createVane({ baseUrl: server.baseUrl('orders'), apiKey: PG_SERVICE_KEY, logger });
      const pool = await vane.liveResource({
        configs: ['db.host', 'db.port', 'db.user', 'db.name'],
        secrets: ['db.password'],
        create: ({ configs, secrets }) => {
          const p = new Pool({
            host: String(configs['db.host']),
            port: Number(configs['db.port']),
            user: String(configs['db.user']),
            database: String(configs['db.name']),
            password: secrets['db.password'],
            max: PG_POOL_MAX,
          });
          p.on('error', () => undefined); // an idle connection the server dropped: the pool opens another
          return p;
        },
        ready: (p) => p.query('SELECT 1'), // the new password works before the new pool serves
        dispose: (p) => p.end(), // once the requests that borrowed the old pool have finished
      });

      const app = express();
      app.get('/orders/whoami', async (_req, res, next) => {
        try {
          const { rows } = await pool.use((p) => p.query<{ user: string }>('SELECT current_user AS user'));
          res.json(rows[0]);
        } catch (err) {
          next(err);
        }
      });
      app.use(vane.errorHandler());
      // #endregion express-live-pool
      const http = createHttpServer(app);
      const port = await listen(http);
      try {
        await rotatePasswordUnderLoad(pg, {
          url: `http://127.0.0.1:${port}/orders/whoami`,
          client: vane.client,
          pool,
          logs: () => lines.join('\n'),
        });
      } finally {
        const last = pool.current;
        await close(http);
        await vane.close();
        expect(last.ended).toBe(true);
      }
      expect(pool.closed).toBe(true);
      await connectionsBecome(pg, 0);
    }, 120_000);
  });
});

describe.each(EXPRESS_VERSIONS)(
  'a live TLS certificate on https.createServer(app), %s',
  (_name, express: AppFactory) => {
    let server: VaneServer;
    let first: TestCertificate;
    let vane: VaneExpress;

    beforeAll(async () => {
      first = await makeCertificate();
      server = await startVaneServer({ seed: tlsSeed(first), port: 0 });
    }, 30_000);

    afterAll(async () => {
      await vane?.close();
      await server?.close();
    });

    it('serves the new certificate to new connections and keeps the open ones', async () => {
      vane = await createVane({
        baseUrl: server.baseUrl('edge'),
        apiKey: TLS_SERVICE_KEY,
        logger: { warn() {}, error() {} },
      });
      const app = express();
      app.get('/health', (_req, res) => {
        res.json({ ok: true });
      });
      // #region express-live-tls
      const tls = await vane.liveResource(tlsCertificate({ cert: { file: 'tls.cert' }, key: { file: 'tls.key' } }));
      const https = createHttpsServer(tls.current, app);
      keepSecureContextCurrent(https, tls);
      // #endregion express-live-tls
      https.keepAliveTimeout = 60_000;
      const port = await listen(https);
      try {
        await rotateCertificate(server, `https://127.0.0.1:${port}/health`, tls, first);
      } finally {
        await close(https);
      }
    }, 60_000);
  },
);
