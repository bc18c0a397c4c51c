import { describeWithPostgres } from '../../../test/support/postgres.js';
import { startVaneServer, type VaneServer } from '../src/index.js';
import { Keyring } from '../src/sealing/keyring.js';
import { testSeed, until } from '../src/testing/index.js';
import { admin } from './support/http-client.js';
import { databaseBehindProxy, usePostgresAndTempDir } from './support/postgres-and-temp-dir.js';

// A root-key rotation is committed, then the stored state is rewritten (the checkpoint). PostgreSQL stopping
// between the two (the fault schedule's seed 37 once answered a rotation 500) must not make a committed rotation
// an internal error: the checkpoint waits for the store to come back, and the answer is the rotation's.
jest.setTimeout(90_000);

describeWithPostgres('a root-key rotation under PostgreSQL faults', () => {
  const setup = usePostgresAndTempDir('vane-rotation-faults-');

  it('waits for the store, rewrites the stored state, and answers 200: nothing stored needs the old key', async () => {
    const { url, proxy } = await databaseBehindProxy(setup.pg, 'rotation_faults');
    const oldKey = Keyring.generate();
    const newKey = Keyring.generate();
    let server: VaneServer | undefined;
    const warnings: string[] = [];
    const retried = (): number => warnings.filter((m) => /the checkpoint after the rotation .* failed/.test(m)).length;
    try {
      server = await startVaneServer({
        store: url,
        seed: testSeed(),
        adminToken: 'fleet-admin-token',
        rootKey: `${oldKey.text},${newKey.text}`,
        logger: { info: () => undefined, warn: (m) => warnings.push(m), error: () => undefined },
      });
      // The checkpoint's first statement reaches PostgreSQL; its answer never comes back.
      proxy.stallWhere((line) => /INSERT INTO vane_snapshots/.test(line));
      const rotation = admin(server, 'POST', '/root-key/rotate', { root_key: newKey.text });
      await until(
        async () =>
          (
            await setup.pg.query<{ n: number }>(
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'INSERT INTO vane_snapshots%'",
            )
          )[0]!.n > 0,
        'the checkpoint to reach PostgreSQL',
        { timeoutMs: 20_000, intervalMs: 20 },
      );
      // The rotation is committed (its change is stored before its checkpoint begins). PostgreSQL stops now, and
      // stays down while the checkpoint fails three times (each try now fails or waits out the connect timeout).
      await setup.pg.pause();
      proxy.stall(false);
      await until(() => retried() >= 3, 'the checkpoint to fail three times', { timeoutMs: 20_000, intervalMs: 20 });
      await setup.pg.resume();
      const answer = await rotation;
      expect([answer.status, answer.json<{ root_key: string }>().root_key]).toEqual([200, newKey.key.id]);
      const sealing = await admin(server, 'GET', '/sealing');
      expect(sealing.json<{ root_key: string; other_root_keys: string[] }>()).toMatchObject({
        root_key: newKey.key.id,
        other_root_keys: [],
      });
      // What is stored opens with the new key alone: a fresh server given only it starts on the same data.
      await server.close();
      server = await startVaneServer({ store: url, adminToken: 'fleet-admin-token', rootKey: newKey.text });
      expect((await admin(server, 'GET', '/sealing')).json<{ root_key: string }>().root_key).toBe(newKey.key.id);
    } finally {
      await server?.close();
      await proxy.close();
    }
  });

  it('the rotating replica lost before its checkpoint: another replica rewrites the stored state', async () => {
    const { url: viaProxy, direct: url, proxy } = await databaseBehindProxy(setup.pg, 'rotation_lost');
    const oldKey = Keyring.generate();
    const newKey = Keyring.generate();
    const options = { seed: testSeed(), adminToken: 'fleet-admin-token', rootKey: `${oldKey.text},${newKey.text}` };
    const servers: VaneServer[] = [];
    try {
      const rotating = await startVaneServer({ ...options, store: viaProxy });
      servers.push(rotating);
      const other = await startVaneServer({ ...options, store: url, storeCheckIntervalMs: 200 });
      servers.push(other);
      // The rotation commits; its checkpoint never reaches PostgreSQL: the replica is gone from the database's view.
      proxy.holdWhere((line) => /INSERT INTO vane_snapshots/.test(line));
      const rotation = admin(rotating, 'POST', '/root-key/rotate', { root_key: newKey.text }).catch(() => undefined);
      await until(
        async () => (await admin(other, 'GET', '/sealing')).json<{ root_key: string }>().root_key === newKey.key.id,
        'the other replica to apply the rotation',
        { timeoutMs: 20_000, intervalMs: 50 },
      );
      await proxy.close();
      // What is stored comes to open with the new key alone: a server given only it starts on the same data.
      await until(
        async () => {
          try {
            servers.push(await startVaneServer({ store: url, adminToken: 'fleet-admin-token', rootKey: newKey.text }));
            return true;
          } catch (error) {
            if ((error as { code?: string }).code !== 'VANE_ROOT_KEY_MISSING') throw error;
            return false;
          }
        },
        'the stored state to need only the new key',
        { timeoutMs: 20_000, intervalMs: 200 },
      );
      void rotation;
    } finally {
      for (const server of servers.reverse()) await server.close();
      await proxy.close().catch(() => undefined);
    }
  });

  /** A server on a new database behind a proxy, holding an old root key and the new one it may rotate to. */
  async function rotatingServer(name: string) {
    const { url, proxy } = await databaseBehindProxy(setup.pg, name);
    const oldKey = Keyring.generate();
    const newKey = Keyring.generate();
    const server = await startVaneServer({
      store: url,
      seed: testSeed(),
      adminToken: 'fleet-admin-token',
      rootKey: `${oldKey.text},${newKey.text}`,
    }).catch(async (error: unknown) => {
      await proxy.close();
      throw error;
    });
    return { server, proxy, oldKey, newKey };
  }
  const isRootKeysRead = (line: string): boolean => /FROM vane_replicas/.test(line) && /root_keys/.test(line);

  it("the fleet's root keys read answers no more: the rotation is answered in bounded time, not left hanging", async () => {
    const { server, proxy, oldKey, newKey } = await rotatingServer('rotation_read_stalled');
    try {
      // Every read of the replicas' root keys reaches PostgreSQL, and its answer never comes back.
      proxy.stallWhere(isRootKeysRead);
      const answer = await admin(server, 'POST', '/root-key/rotate', { root_key: newKey.text });
      // Nothing was changed, and the answer says so (PROTOCOL §3: a 503 never committed).
      expect([answer.status, answer.json<{ error: string }>().error]).toEqual([503, 'store_unavailable']);
      proxy.stall(false);
      const sealing = (await admin(server, 'GET', '/sealing')).json<{ root_key: string }>();
      expect(sealing.root_key).toBe(oldKey.key.id);
    } finally {
      await server.close();
      await proxy.close();
    }
  });

  it("the connection drops under the fleet's root keys read: read again, the rotation goes on and answers 200", async () => {
    const { server, proxy, newKey } = await rotatingServer('rotation_read_cut');
    try {
      // As after PostgreSQL restarted: the read's connection is reset half-way through its answer.
      proxy.cutNextChunk(isRootKeysRead);
      const answer = await admin(server, 'POST', '/root-key/rotate', { root_key: newKey.text });
      expect([answer.status, answer.json<{ root_key: string }>().root_key]).toEqual([200, newKey.key.id]);
    } finally {
      await server.close();
      await proxy.close();
    }
  });
});
