import { describeWithPostgres } from '../../../test/support/postgres.js';
import { startVaneServer, type VaneServer } from '../src/index.js';
import { TEST_KEYS, testSeed } from '../src/testing/index.js';
import { admin, call, openStream, type Answer } from './support/http-client.js';
import { usePostgresAndTempDir } from './support/postgres-and-temp-dir.js';

// Two replicas and a database on a loaded two-core machine.
jest.setTimeout(90_000);

/** The root key both replicas share. */
const ROOT_KEY = Buffer.alloc(32, 5).toString('base64');

/** Writes per writer: enough for the sequence race to be lost many times over. */
const WRITES_EACH = 40;

describeWithPostgres('reads on a fleet never wait on writes', () => {
  const setup = usePostgresAndTempDir('vane-fleet-reads-');

  it('answers every sync, stream and A/B evaluation while writers on two replicas race for the same sequence numbers', async () => {
    const url = await setup.pg.createDatabase('reads_under_writes');
    const common = {
      store: url,
      seed: testSeed(),
      adminToken: 'fleet-admin-token',
      rootKey: ROOT_KEY,
      storeCheckIntervalMs: 200,
    };
    const servers: VaneServer[] = [];
    try {
      servers.push(await startVaneServer({ ...common, replicaId: 'a' }));
      servers.push(await startVaneServer({ ...common, replicaId: 'b' }));
      const streams = await Promise.all(
        servers.map((server) => openStream(server, { slug: 'shop', key: TEST_KEYS.shopSecret })),
      );
      let writing = true;
      const writer = async (server: VaneServer, name: string): Promise<Answer[]> => {
        const answers: Answer[] = [];
        for (let i = 0; i < WRITES_EACH; i++) {
          answers.push(await admin(server, 'PUT', `/services/shop/configs/race.${name}`, { value: i }));
        }
        return answers;
      };
      const reads: Answer[] = [];
      const reader = async (server: VaneServer): Promise<void> => {
        let etag = '';
        while (writing) {
          const sync = await call(server, {
            path: '/v1/sync',
            slug: 'shop',
            key: TEST_KEYS.shopSecret,
            headers: etag ? { 'if-none-match': etag } : {},
          });
          if (sync.status === 200) etag = String(sync.headers.etag);
          reads.push(sync);
          reads.push(
            await call(server, {
              method: 'POST',
              path: '/v1/flags/evaluate-ab',
              slug: 'shop',
              key: TEST_KEYS.shopSecret,
              body: { keys: ['new-pricing'], user_id: 'u1', attributes: { country: 'DE' } },
            }),
          );
        }
      };
      const readers = servers.flatMap((server) => [reader(server), reader(server)]);
      const writes = await Promise.all(
        servers.flatMap((server, i) => [writer(server, `${i}-1`), writer(server, `${i}-2`), writer(server, `${i}-3`)]),
      );
      writing = false;
      await Promise.all(readers);
      // Each write answers for itself: committed, or (on a machine too loaded for its 2 s deadline) refused, or
      // sent with no answer in time (504): a write's meaning, never a read's.
      const statuses = writes.flat().map((w) => w.status);
      expect(statuses.filter((status) => status !== 200 && status !== 503 && status !== 504)).toEqual([]);
      expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(statuses.length / 2);
      const failed = reads.filter((r) => r.status !== 200 && r.status !== 304).map((r) => `${r.status} ${r.text}`);
      expect(failed).toEqual([]);
      expect(reads.length).toBeGreaterThan(20);
      // Each replica's stream sends every revision once, in order, up to the last committed.
      const last = (await call(servers[0]!, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret })).json<{
        revision: number;
      }>().revision;
      for (const stream of streams) {
        expect(stream.status).toBe(200);
        const patches = (): Array<{ base: number; revision: number }> =>
          stream.events
            .filter((e) => e.event === 'patch')
            .map((e) => JSON.parse(e.data) as { base: number; revision: number });
        await stream.until(() => patches().some((p) => p.revision === last), `revision ${last} on the stream`);
        const chain = patches();
        for (let i = 1; i < chain.length; i++) expect(chain[i]!.base).toBe(chain[i - 1]!.revision);
        stream.close();
      }
    } finally {
      await Promise.all(servers.map((server) => server.close()));
    }
  });
});
