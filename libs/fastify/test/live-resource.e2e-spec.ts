import vane from '@vane/fastify';
import type { FastifyInstance } from 'fastify';
import { waitForRevision } from '@vane/server/testing';
import { FASTIFY_VERSIONS, type AppFactory } from './support/fastify-versions.js';
import { startServer, type ServerFixture } from './support/vane-fixture.js';

/** What the live resource builds: a stand-in for a pool, from a config and a secret. */
interface FakePool {
  readonly host: string;
  readonly keyVersion: number;
  disposed: boolean;
}

describe.each(FASTIFY_VERSIONS)('app.vane.liveResource() on %s', (_name, makeApp: AppFactory) => {
  let fx: ServerFixture;
  let app: FastifyInstance | undefined;

  beforeEach(async () => {
    fx = await startServer();
  });
  afterEach(async () => {
    await app?.close();
    await fx.close();
  });

  it('builds from the values it names, rebuilds on a change, serves requests through use(), and closes with the app', async () => {
    app = makeApp();
    await app.register(vane, fx.options());
    const built: FakePool[] = [];
    const pool = await app.vane.liveResource({
      name: 'fake-pool',
      configs: ['db.host'],
      secrets: ['stripe.api_key'],
      create: ({ configs }) => {
        const instance = { host: String(configs['db.host']), keyVersion: built.length + 1, disposed: false };
        built.push(instance);
        return instance;
      },
      dispose: (instance) => {
        instance.disposed = true;
      },
    });
    app.get('/host', async () => pool.use((p) => ({ host: p.host })));
    await app.ready();
    expect((await app.inject({ url: '/host' })).json()).toEqual({ host: 'localhost' });

    const rebuilt = new Promise<void>((resolve) => {
      const off = pool.onEvent((event) => {
        if (event.type !== 'rebuilt') return;
        off();
        resolve();
      });
    });
    await waitForRevision(app.vane.client, fx.server.admin.setConfig('shop', 'db.host', 'db-2.internal'));
    await rebuilt;
    expect((await app.inject({ url: '/host' })).json()).toEqual({ host: 'db-2.internal' });
    expect(built.map((p) => [p.host, p.disposed])).toEqual([
      ['localhost', true],
      ['db-2.internal', false],
    ]);

    await app.close();
    app = undefined;
    expect(pool.closed).toBe(true);
    expect(built[1]!.disposed).toBe(true);
  }, 30_000);
});
