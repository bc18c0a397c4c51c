import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileBackupStore } from '@vane/client';
import { createVane, type VaneExpressOptions } from '@vane/express';
import { startVaneServer, type VaneServer } from '@vane/server';
import request from 'supertest';
import { EXPRESS_VERSIONS, type AppFactory } from './support/express-versions.js';
import { ADAPTER_KEYS, adapterSeed } from '@vane/test-harness';

describe.each(EXPRESS_VERSIONS)(
  'lastKnownGood on %s: vane.status while the service is down',
  (_name, makeApp: AppFactory) => {
    let dir: string;
    let server: VaneServer;

    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'vane-express-lkg-'));
      server = await startVaneServer({ seed: adapterSeed(), port: 0 });
    });

    afterEach(async () => {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('the app starts from the backup, says it is stale, and turns fresh when the service is back', async () => {
      const options: VaneExpressOptions = {
        baseUrl: server.baseUrl('shop'),
        apiKey: ADAPTER_KEYS.secret,
        logger: { warn() {}, error() {} },
        backoffMinMs: 20,
        backoffMaxMs: 40,
        lastKnownGood: { store: new FileBackupStore({ directory: join(dir, 'backups') }) },
      };
      await (await createVane(options)).close();
      const port = server.port;
      await server.close();

      const vane = await createVane(options);
      try {
        expect(vane.status.stale).toMatchObject({ reason: 'transport', secretsAvailable: true });
        const app = makeApp();
        app.use(vane.middleware());
        app.get('/health', (_req, res) => {
          const { mode, stale } = vane.status;
          res.json({ mode, stale: stale ? { reason: stale.reason, code: stale.error.code } : null });
        });
        app.get('/db', (req, res) => res.json({ host: req.vane.config('db.host') }));
        await request(app).get('/db').expect(200, { host: 'localhost' });
        await request(app)
          .get('/health')
          .expect(200)
          .expect((res) => expect(res.body).toMatchObject({ stale: { reason: 'transport', code: 'VANE_TRANSPORT' } }));

        server = await startVaneServer({ seed: adapterSeed(), port });
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('not fresh within 5 s')), 5000);
          const off = vane.client.onStatusChange((status) => {
            if (status.stale !== undefined) return;
            clearTimeout(timer);
            off();
            resolve();
          });
        });
        await request(app)
          .get('/health')
          .expect(200)
          .expect((res) => expect(res.body).toMatchObject({ stale: null }));
      } finally {
        await vane.close();
      }
    });
  },
);
