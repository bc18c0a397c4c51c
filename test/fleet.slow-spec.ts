import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { TEST_KEYS, testSeed, until } from '@vane/server/testing';
import { PROCESS_TEST_MS } from '@vane/test-harness';
import {
  RawStreamClient,
  FleetWriter,
  putConfig,
  startFleet,
  startReplica,
  syncOf,
  type Fleet,
  type Replica,
  type SyncedSnapshot,
} from './support/fleet.js';
import { get } from './support/http.js';
import { describeWithNginx } from './support/nginx.js';
import { describeWithPostgres, findPostgresTool, startPostgres, type TestPostgres } from './support/postgres.js';
import { killLeftovers } from './support/process.js';
import { DEMO_SEED, changeAndWait, startSample } from './support/samples.js';

// Three `vane-server` processes on one PostgreSQL behind a real nginx, driven as a fleet is in production:
// the Nest sample streaming through the balancer, writes through every replica, replicas killed with
// SIGKILL under a thousand streams, PostgreSQL stopped under load, a backup restored.

/** Generous bounds for a loaded 2-core machine: every wait below is on an event, these only end a hung test. */
const FLEET_TEST_MS = 180_000;
const KILL_TEST_MS = 420_000;
const CATCH_UP_MS = 60_000;

const execFileAsync = promisify(execFile);

describeWithPostgres('a fleet on PostgreSQL', () => {
  describeWithNginx('three vane-server replicas behind nginx', () => {
    let pg: TestPostgres;
    let dir: string;
    let store: string;
    let databases = 0;
    let fleet: Fleet | undefined;
    const clients: RawStreamClient[] = [];

    beforeAll(async () => {
      pg = await startPostgres();
    }, PROCESS_TEST_MS);
    afterAll(async () => {
      await pg?.stop();
    }, PROCESS_TEST_MS);
    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'vane-fleet-'));
      store = await pg.createDatabase(`fleet_${++databases}`);
    });
    afterEach(async () => {
      for (const client of clients.splice(0)) client.close();
      // A replica that exited by itself is a finding: say what it printed.
      for (const replica of fleet?.replicas ?? []) {
        const { exitCode } = replica.proc.child;
        if (exitCode !== null) console.warn(`replica ${replica.name} exited (${exitCode}):\n${replica.proc.output()}`);
      }
      await killLeftovers();
      await fleet?.stop();
      fleet = undefined;
      await rm(dir, { recursive: true, force: true });
    }, PROCESS_TEST_MS);

    const shopSync = async (origin: string): Promise<{ etag: string; text: string; snapshot: SyncedSnapshot }> => {
      const answer = await syncOf(origin, 'shop', TEST_KEYS.shopSecret);
      expect(answer.status).toBe(200);
      return { etag: String(answer.headers.etag), text: answer.text, snapshot: JSON.parse(answer.text) };
    };

    /** Opens `count` raw stream clients through `origin`, a batch at a time (each live once its resync is in). */
    const openClients = async (origin: string, count: number): Promise<RawStreamClient[]> => {
      const opened: RawStreamClient[] = [];
      for (let i = 0; i < count; i += 100) {
        const batch = Array.from(
          { length: Math.min(100, count - i) },
          () => new RawStreamClient(origin, 'shop', TEST_KEYS.shopSecret),
        );
        clients.push(...batch);
        opened.push(...batch);
        await Promise.all(batch.map((c) => c.open()));
      }
      return opened;
    };

    /** Waits until every replica serves the same revision of `shop`; returns it with its ETag. */
    const converged = async (replicas: readonly Replica[]): Promise<{ revision: number; etag: string }> => {
      let answers: Array<{ etag: string; text: string; snapshot: SyncedSnapshot }> = [];
      await until(
        async () => {
          answers = await Promise.all(replicas.map((r) => shopSync(r.url)));
          return answers.every((a) => a.snapshot.revision === answers[0]!.snapshot.revision);
        },
        'every replica at the same revision',
        { timeoutMs: CATCH_UP_MS, intervalMs: 100 },
      );
      // The same revision is the same bytes and the same ETag on every replica.
      for (const answer of answers) {
        expect(answer.etag).toBe(answers[0]!.etag);
        expect(answer.text).toBe(answers[0]!.text);
      }
      return { revision: answers[0]!.snapshot.revision, etag: answers[0]!.etag };
    };

    /** What every client must have seen: patches chained on each stream, revisions only ever forward. */
    const expectOrderly = (all: readonly RawStreamClient[]): void => {
      expect(all.flatMap((c) => c.violations)).toEqual([]);
      for (const client of all) {
        for (let i = 1; i < client.applied.length; i++) {
          expect(client.applied[i]).toBeGreaterThan(client.applied[i - 1]!);
        }
      }
    };

    it(
      'the Nest sample streaming through nginx: a flag flipped through each replica reaches the app live',
      async () => {
        const seed = JSON.parse(readFileSync(DEMO_SEED, 'utf8')) as {
          services: { shop: { keys: string[] } };
        };
        const apiKey = seed.services.shop.keys.find((k) => k.startsWith('svs_'))!;
        fleet = await startFleet({ store, seed, dir });
        const lb = fleet;
        const app = await startSample('nest', { baseUrl: () => lb.baseUrl('shop'), secretKey: () => apiKey });
        expect(await get(`${app.url}/checkout`)).toMatchObject({ status: 200 });
        // The app starts on a sync, its stream connecting meanwhile (mode `polling`): wait for it to connect. A stream
        // that fell back after errors would poll for its 60 s cooldown, past this bound: that still fails here.
        const streaming = (body: unknown): boolean => {
          const vane = (body as { info?: { vane?: { mode?: string; connected?: boolean } } }).info?.vane;
          return vane?.mode === 'stream' && vane.connected === true;
        };
        await until(async () => streaming((await get(`${app.url}/health`)).body), "the app's stream to connect", {
          timeoutMs: 30_000,
          intervalMs: 50,
        });
        expect((await get(`${app.url}/health`)).body).toMatchObject({
          info: { vane: { status: 'up', mode: 'stream', connected: true } },
        });
        // The app's one stream is on one replica: at least two of these flips come through another.
        let enabled = true;
        for (const replica of fleet.replicas) {
          enabled = !enabled;
          await changeAndWait(replica, app, 'flag', 'new-checkout', { is_enabled: enabled });
          expect((await get(`${app.url}/checkout`)).status).toBe(enabled ? 200 : 404);
        }
        await changeAndWait(fleet.replicas[0]!, app, 'config', 'greeting.text', { value: 'Hello from a fleet' });
        expect((await get(`${app.url}/greeting`)).body).toMatchObject({ greeting: 'Hello from a fleet' });
      },
      FLEET_TEST_MS,
    );

    it(
      'concurrent writes through all three replicas: gapless revisions, the same on every replica, in order on every stream',
      async () => {
        fleet = await startFleet({ store, seed: testSeed(), dir });
        const { replicas } = fleet;
        // Two streams on each replica, straight to it, so each replica's own streams are judged.
        const streams = (await Promise.all(replicas.map((r) => openClients(r.url, 2)))).flat();
        const base = (await shopSync(replicas[0]!.url)).snapshot.revision;
        const writes = 60;
        const answers = await Promise.all(
          Array.from({ length: writes }, (_, i) => putConfig(replicas[i % 3]!.url, 'shop', `concurrent.k${i}`, i)),
        );
        expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
        const revisions = answers.map((a) => (JSON.parse(a.text) as { revision: number }).revision);
        expect([...revisions].sort((x, y) => x - y)).toEqual(Array.from({ length: writes }, (_, i) => base + 1 + i));
        const last = base + writes;
        await Promise.all(streams.map((s) => s.reach(last, CATCH_UP_MS)));
        for (const stream of streams) {
          // Never resynced: every revision arrived as a patch, one after the other.
          expect(stream.connections).toBe(1);
          expect(stream.applied).toEqual(Array.from({ length: writes + 1 }, (_, i) => base + i));
        }
        expectOrderly(streams);
        const { revision } = await converged(replicas);
        expect(revision).toBe(last);
        const { snapshot } = await shopSync(fleet.nginx.url);
        for (let i = 0; i < writes; i++) expect(snapshot.configs[`concurrent.k${i}`]).toBe(i);
      },
      FLEET_TEST_MS,
    );

    it(
      'kill -9 of a replica under writes and 1,000 streams, three rounds: no acknowledged write lost, every client at the final revision, in order',
      async () => {
        fleet = await startFleet({ store, seed: testSeed(), dir });
        const { replicas, nginx } = fleet;
        const all = await openClients(nginx.url, 1000);
        const writer = new FleetWriter(nginx.url, 'shop', 'killed');
        try {
          for (const victim of replicas) {
            await writer.more(15, CATCH_UP_MS);
            await victim.kill9();
            await writer.more(15, CATCH_UP_MS);
            await victim.restart();
            await writer.more(15, CATCH_UP_MS);
          }
        } finally {
          await writer.stop();
        }
        const { revision } = await converged(replicas);
        const { snapshot } = await shopSync(nginx.url);
        expect(snapshot.revision).toBe(revision);
        const lost = writer.acknowledged.filter((w) => snapshot.configs[w.key] !== w.value);
        expect(lost).toEqual([]);
        // Two answers may name one revision: nginx passes a PUT whose replica died before answering to the next
        // replica, where the write, already committed, changes nothing and is answered with the current revision.
        expect(writer.acknowledged.filter((w) => w.revision > revision)).toEqual([]);
        await Promise.all(all.map((c) => c.reach(revision, CATCH_UP_MS)));
        expectOrderly(all);
        // The kills reached the clients: streams ended and were opened again through the balancer.
        expect(all.reduce((n, c) => n + c.streamEnds, 0)).toBeGreaterThan(0);
        expect(writer.acknowledged.length).toBeGreaterThanOrEqual(135);
      },
      KILL_TEST_MS,
    );

    it(
      'a client moved to a replica that has not yet applied its Last-Event-ID is never sent back to an older revision',
      async () => {
        fleet = await startFleet({ store, seed: testSeed(), dir, count: 2 });
        const [a, b] = fleet.replicas as [Replica, Replica];
        const onA = (await openClients(a.url, 1))[0]!;
        // B behind A, for as long as the test needs: frozen while A commits, then unable to read the change
        // (the table locked) once it runs again; as a replica whose database connection is slow would be.
        const locker = new Client({ connectionString: store });
        await locker.connect();
        process.kill(b.proc.pid, 'SIGSTOP');
        let revision: number;
        try {
          const answer = await putConfig(a.url, 'shop', 'moved.k', 1);
          expect(answer.status).toBe(200);
          revision = (JSON.parse(answer.text) as { revision: number }).revision;
          await onA.reach(revision, CATCH_UP_MS);
          await locker.query('BEGIN');
          await locker.query('LOCK TABLE vane_changes IN ACCESS EXCLUSIVE MODE');
        } finally {
          process.kill(b.proc.pid, 'SIGCONT');
        }
        const moved = new RawStreamClient(b.url, 'shop', TEST_KEYS.shopSecret);
        clients.push(moved);
        try {
          // The client that saw that revision on A reconnects, and the balancer sends it to B.
          await moved.open(revision);
        } finally {
          await locker.query('ROLLBACK');
          await locker.end();
        }
        await moved.reach(revision, CATCH_UP_MS);
        expect(moved.violations).toEqual([]);
      },
      FLEET_TEST_MS,
    );

    it(
      'PostgreSQL stopped and started under load: reads and streams go on, writes get 503 with Retry-After, replicas catch up',
      async () => {
        fleet = await startFleet({ store, seed: testSeed(), dir });
        const { replicas, nginx } = fleet;
        const all = await openClients(nginx.url, 60);
        const writer = new FleetWriter(nginx.url, 'shop', 'outage', 2);
        try {
          await writer.more(5, CATCH_UP_MS);
          const before = await converged(replicas);
          await Promise.all(all.map((c) => c.reach(before.revision, CATCH_UP_MS)));
          await pg.pause();
          try {
            for (const replica of replicas) {
              const refused = await putConfig(replica.url, 'shop', 'outage.direct', replica.name);
              expect(refused.status).toBe(503);
              expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
              expect(JSON.parse(refused.text)).toMatchObject({ error: 'store_unavailable' });
            }
            // Reads are served from memory, by every replica and through the balancer. Not necessarily the same
            // revision: a write the load committed just before the pause reaches the others once PostgreSQL is back.
            const during = await Promise.all([...replicas.map((r) => shopSync(r.url)), shopSync(nginx.url)]);
            for (const answer of during) {
              expect(answer.snapshot.revision).toBeGreaterThanOrEqual(before.revision);
              expect(answer.snapshot.configs).not.toHaveProperty(['outage.direct']);
            }
            await until(() => writer.refused.filter((s) => s === 503).length >= 6, 'six writes refused with 503', {
              timeoutMs: CATCH_UP_MS,
            });
            // No stream was cut: replicas keep serving from memory.
            expect(all.reduce((n, c) => n + c.streamEnds, 0)).toBe(0);
          } finally {
            await pg.resume();
          }
          await writer.more(10, CATCH_UP_MS);
        } finally {
          await writer.stop();
        }
        // Every replica takes writes again, without a restart.
        for (const replica of replicas) {
          await until(
            async () => (await putConfig(replica.url, 'shop', `outage.after.${replica.name}`, 1)).status === 200,
            `replica ${replica.name} taking writes again`,
            { timeoutMs: CATCH_UP_MS, intervalMs: 200 },
          );
        }
        const { revision } = await converged(replicas);
        const { snapshot } = await shopSync(nginx.url);
        // Every write acknowledged, before, during or after the outage, is kept; the refused one never appears.
        expect(writer.acknowledged.filter((w) => snapshot.configs[w.key] !== w.value)).toEqual([]);
        expect(snapshot.configs).not.toHaveProperty(['outage.direct']);
        await Promise.all(all.map((c) => c.reach(revision, CATCH_UP_MS)));
        expectOrderly(all);
      },
      FLEET_TEST_MS,
    );

    it(
      'pg_dump and pg_restore: the restored database serves the same revisions, ETags and replayed patches',
      async () => {
        fleet = await startFleet({ store, seed: testSeed(), dir, count: 1 });
        const [replica] = fleet.replicas;
        for (let i = 0; i < 8; i++) expect((await putConfig(replica!.url, 'shop', `backup.k${i}`, i)).status).toBe(200);
        const dump = join(dir, 'fleet.dump');
        const from = new URL(store);
        // Passwords in the environment, never on the command line.
        const env = { PATH: process.env['PATH'] ?? '', PGPASSWORD: decodeURIComponent(from.password) };
        const target = new URL(await pg.createDatabase(`restored_${databases}`));
        await execFileAsync(
          findPostgresTool('pg_dump')!,
          ['-Fc', '-f', dump, '-h', from.hostname, '-p', from.port, '-U', from.username, from.pathname.slice(1)],
          { env },
        );
        await execFileAsync(
          findPostgresTool('pg_restore')!,
          [
            '--no-owner',
            '--no-privileges',
            '-h',
            target.hostname,
            '-p',
            target.port,
            '-U',
            target.username,
            '-d',
            target.pathname.slice(1),
            dump,
          ],
          { env: { ...env, PGPASSWORD: decodeURIComponent(target.password) } },
        );
        const restored = await startReplica({ name: 'restored', store: target.toString() });
        for (const key of [TEST_KEYS.shopSecret, TEST_KEYS.shopPublic]) {
          const [original, copy] = await Promise.all([
            syncOf(replica!.url, 'shop', key),
            syncOf(restored.url, 'shop', key),
          ]);
          expect(copy.status).toBe(200);
          expect(copy.headers.etag).toBe(original.headers.etag);
          expect(copy.text).toBe(original.text);
        }
        // The replay history came along: the same patches after the same Last-Event-ID.
        const { revision } = (await shopSync(replica!.url)).snapshot;
        const replayed = await Promise.all(
          [replica!, restored].map(async (r) => {
            const client = new RawStreamClient(r.url, 'shop', TEST_KEYS.shopSecret);
            clients.push(client);
            await client.open(revision - 3);
            await client.reach(revision, CATCH_UP_MS);
            return client;
          }),
        );
        for (const client of replayed) {
          expect(client.violations).toEqual([]);
          expect(client.applied).toEqual([revision - 2, revision - 1, revision]);
        }
      },
      FLEET_TEST_MS,
    );
  });
});
