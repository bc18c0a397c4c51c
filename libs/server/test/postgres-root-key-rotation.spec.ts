import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeWithPostgres } from '../../../test/support/postgres.js';
import { startVaneServer, type VaneServer } from '../src/index.js';
import { Keyring } from '../src/sealing/keyring.js';
import { TEST_KEYS, testSeed, until } from '../src/testing/index.js';
import { admin, call } from './support/http-client.js';
import { usePostgresAndTempDir } from './support/postgres-and-temp-dir.js';
import { expectRotatedFleet, rotateFleetUnderWrites } from './support/rotate-fleet-under-writes.js';

// Four replicas and a database on a loaded two-core machine; the 1,000-write run is root-key-rotation.slow-spec.ts.
jest.setTimeout(60_000);

describeWithPostgres('root-key rotation on a fleet, online', () => {
  const setup = usePostgresAndTempDir('vane-fleet-rotation-');

  it('one replica rotates among writes to three; every replica follows without a restart, nothing needs the old key', async () => {
    expectRotatedFleet(await rotateFleetUnderWrites(await setup.pg.createDatabase('rotation'), setup.dir, 120));
  });

  it('never stalls the write path: a writer on the rotating replica is answered at once, each time', async () => {
    const url = await setup.pg.createDatabase('stall');
    const oldKey = Keyring.generate();
    const newKey = Keyring.generate();
    const seed = testSeed();
    seed.tenant!.write_rate_per_minute = 1_000_000;
    const server = await startVaneServer({
      store: url,
      seed,
      adminToken: 'fleet-admin-token',
      rootKey: `${oldKey.text},${newKey.text}`,
      storeCheckIntervalMs: 200,
    });
    try {
      let rotations = 0;
      const slowest: number[] = [];
      const writer = async (): Promise<void> => {
        // One write at a time, as a client waiting for each answer: a write left in the queue is never answered.
        for (let n = 0; rotations < 6; n++) {
          const started = performance.now();
          const answer = await call(server, {
            method: 'PUT',
            path: `/v1/secrets/stall.${n % 5}`,
            slug: 'shop',
            key: TEST_KEYS.shopSecret,
            body: { value: `v-${n}` },
          });
          expect(answer.status).toBe(200);
          slowest.push(performance.now() - started);
        }
      };
      const rotator = async (): Promise<void> => {
        // Back and forth between the two keys: each rotation commits, then rewrites the sealed state.
        for (; rotations < 6; rotations++) {
          const to = rotations % 2 === 0 ? newKey : oldKey;
          expect((await admin(server, 'POST', '/root-key/rotate', { root_key: to.text })).status).toBe(200);
        }
      };
      await Promise.all([writer(), rotator()]);
      // Each write is answered within the write deadline: none waited for the next write to come.
      expect(Math.max(...slowest)).toBeLessThan(3000);
    } finally {
      await server.close();
    }
  });

  it('is refused at once for a replica that has just started (it counts from its first heartbeat, at attach)', async () => {
    const url = await setup.pg.createDatabase('just-started');
    const oldKey = Keyring.generate();
    const newKey = Keyring.generate();
    // A check interval far longer than the test: only the heartbeat at attach can report B.
    const common = { store: url, seed: testSeed(), adminToken: 'fleet-admin-token', storeCheckIntervalMs: 600_000 };
    const servers: VaneServer[] = [];
    try {
      servers.push(await startVaneServer({ ...common, rootKey: oldKey.text, replicaId: 'a' }));
      servers.push(await startVaneServer({ ...common, rootKey: oldKey.text, replicaId: 'b' }));
      const refused = await admin(servers[0]!, 'POST', '/root-key/rotate', { root_key: newKey.text });
      expect(refused.status).toBe(409);
      expect(refused.text).toContain(`replica(s) b do not hold root key ${newKey.key.id}`);
    } finally {
      await Promise.all(servers.map((server) => server.close()));
    }
  });

  it('is refused, naming the replica, while a live replica does not hold the new key; goes through once it does', async () => {
    const url = await setup.pg.createDatabase('refusal');
    const oldKey = Keyring.generate();
    const newKey = Keyring.generate();
    const fileB = join(setup.dir, 'b.keys');
    writeFileSync(fileB, `${oldKey.text}\n`, { mode: 0o600 });
    const common = { store: url, seed: testSeed(), adminToken: 'fleet-admin-token', storeCheckIntervalMs: 200 };
    const servers: VaneServer[] = [];
    try {
      servers.push(await startVaneServer({ ...common, rootKey: oldKey.text, replicaId: 'a' }));
      servers.push(await startVaneServer({ ...common, rootKeyFile: fileB, replicaId: 'b' }));
      const [a] = servers;
      // B's heartbeat has reported its keys: only the old one.
      await until(async () => (await a!.metrics.scrape()).body.includes('vane_fleet_replicas 2'), 'A to see B');
      const refused = await admin(a!, 'POST', '/root-key/rotate', { root_key: newKey.text });
      expect(refused.status).toBe(409);
      expect(refused.text).toContain(`replica(s) b do not hold root key ${newKey.key.id}`);
      expect(refused.text).not.toContain(newKey.text);
      expect((await admin(a!, 'GET', '/sealing')).json()).toMatchObject({ root_key: oldKey.key.id });
      // The operator adds the key to B's file; its next heartbeat says so, and the rotation goes through.
      writeFileSync(fileB, `${newKey.text}\n${oldKey.text}\n`, { mode: 0o600 });
      let answer = refused;
      await until(async () => {
        answer = await admin(a!, 'POST', '/root-key/rotate', { root_key: newKey.text });
        return answer.status !== 409;
      }, 'the rotation to be accepted');
      expect(answer.status).toBe(200);
      await until(
        async () =>
          (await admin(servers[1]!, 'GET', '/sealing')).json<{ root_key: string }>().root_key === newKey.key.id,
        'B to follow the rotation',
      );
    } finally {
      await Promise.all(servers.map((server) => server.close()));
    }
  });
});
