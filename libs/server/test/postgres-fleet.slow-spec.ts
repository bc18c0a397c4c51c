import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeWithPostgres, startPostgres, type TestPostgres } from '../../../test/support/postgres.js';
import { startVaneServer, type VaneServer, type VaneServerOptions } from '../src/index.js';
import { TEST_KEYS, TEST_SECRET_VALUES, testSeed, until } from '../src/testing/index.js';
import { auditVerify } from '../src/commands/audit-verify.js';
import { exportStore, importStore } from '../src/commands/store-transfer.js';
import { admin, call, openStream } from './support/http-client.js';
import { PostgresChangeLog } from '../src/postgres/postgres-change-log.js';
import type { Store } from '../src/domain/store.js';

const ADMIN_TOKEN = 'fleet-admin-token';
/** The root key every replica shares. */
const ROOT_KEY = Buffer.alloc(32, 9).toString('base64');

// Several replicas and databases per test, on a loaded two-core machine.
jest.setTimeout(30_000);

describeWithPostgres('a fleet of replicas on one PostgreSQL', () => {
  let pg: TestPostgres;
  let url: string;
  let databases = 0;
  const started: VaneServer[] = [];

  const replica = async (options: VaneServerOptions = {}): Promise<VaneServer> => {
    const server = await startVaneServer({
      store: url,
      seed: testSeed(),
      adminToken: ADMIN_TOKEN,
      rootKey: ROOT_KEY,
      storeCheckIntervalMs: 200,
      ...options,
    });
    started.push(server);
    return server;
  };

  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await pg?.stop();
  });
  beforeEach(async () => {
    url = await pg.createDatabase(`fleet_${++databases}`);
  }, 30_000);
  afterEach(async () => {
    await Promise.all(started.splice(0).map((s) => s.close()));
  }, 30_000);

  const sync = (server: VaneServer) => call(server, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret });

  it('seeds an empty database once, and a replica that finds data ignores the seed', async () => {
    const a = await replica();
    const b = await replica({ seed: { services: { other: {} } } });
    expect(b.services().map((s) => s.slug)).toEqual(a.services().map((s) => s.slug));
    expect((await sync(b)).json()).toEqual((await sync(a)).json());
    // The keys are stored hashed: the replica that wrote the seed knows them in full, as a state file's first owner does.
    expect([a.secretKey('shop'), a.publicKey('shop')]).toEqual([TEST_KEYS.shopSecret, TEST_KEYS.shopPublic]);
    expect(() => b.secretKey('shop')).toThrow('no active secret key known to this process');
  });

  it('a write through one replica reaches the others: same snapshot, same ETag, same patch bytes', async () => {
    const a = await replica();
    const b = await replica();
    const c = await replica();
    const streamB = await openStream(b, { slug: 'shop', key: TEST_KEYS.shopSecret });
    const streamC = await openStream(c, { slug: 'shop', key: TEST_KEYS.shopSecret });
    await streamB.event(1);
    await streamC.event(1);
    const answer = await admin(a, 'PUT', '/services/shop/configs/db.pool.max', { value: 42 });
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({ revision: 2 });
    const patchB = await streamB.find((e) => e.event === 'patch', 'the patch on B');
    const patchC = await streamC.find((e) => e.event === 'patch', 'the patch on C');
    expect(patchB.id).toBe('2');
    expect(patchB.data).toBe(patchC.data);
    expect(JSON.parse(patchB.data)).toMatchObject({ base: 1, revision: 2, configs: { 'db.pool.max': 42 } });
    const [sa, sb, sc] = await Promise.all([sync(a), sync(b), sync(c)]);
    expect(sb.headers.etag).toBe(sa.headers.etag);
    expect(sc.headers.etag).toBe(sa.headers.etag);
    expect(sb.text).toBe(sa.text);
    // A client moved to another replica with the ETag it had gets 304.
    const moved = await call(c, {
      path: '/v1/sync',
      slug: 'shop',
      key: TEST_KEYS.shopSecret,
      headers: { 'if-none-match': sa.headers.etag! },
    });
    expect(moved.status).toBe(304);
    streamB.close();
    streamC.close();
  });

  it('a client ahead of a replica is never sent back; one ahead of the whole fleet resyncs at once', async () => {
    const a = await replica();
    const b = await replica();
    const answer = await admin(a, 'PUT', '/services/shop/configs/db.pool.max', { value: 42 });
    const { revision } = answer.json<{ revision: number }>();
    // B may not have applied it yet: it reads what is committed before it answers the client that saw it on A.
    const moved = await openStream(b, { slug: 'shop', key: TEST_KEYS.shopSecret, lastEventId: revision });
    expect(await moved.event(1)).toMatchObject({ event: 'resync', id: String(revision) });
    await admin(a, 'PUT', '/services/shop/configs/db.pool.max', { value: 43 });
    expect(JSON.parse((await moved.event(2)).data)).toMatchObject({ base: revision, revision: revision + 1 });
    // A revision no replica committed is from another database: its own revision at once, not after the hold.
    const stranger = await openStream(b, { slug: 'shop', key: TEST_KEYS.shopSecret, lastEventId: revision + 50 });
    expect(await stranger.event(1)).toMatchObject({ event: 'resync', id: String(revision + 1) });
    moved.close();
    stranger.close();
  });

  it('concurrent writes through every replica to one service: gapless revisions, one order everywhere', async () => {
    const replicas = [await replica(), await replica(), await replica()];
    const streams = await Promise.all(replicas.map((r) => openStream(r, { slug: 'shop', key: TEST_KEYS.shopSecret })));
    await Promise.all(streams.map((s) => s.event(1)));
    const writes = 30;
    const answers = await Promise.all(
      Array.from({ length: writes }, (_, i) =>
        admin(replicas[i % 3]!, 'PUT', `/services/shop/configs/load.k${i}`, { value: i }),
      ),
    );
    const revisions = answers.map((a) => (a.json() as { revision: number }).revision).sort((x, y) => x - y);
    expect(revisions).toEqual(Array.from({ length: writes }, (_, i) => i + 2));
    for (const stream of streams) {
      await stream.until((r) => r.events.filter((e) => e.event === 'patch').length === writes, 'every patch');
    }
    const orders = streams.map((s) => s.events.filter((e) => e.event === 'patch').map((e) => e.data));
    expect(orders[1]).toEqual(orders[0]);
    expect(orders[2]).toEqual(orders[0]);
    expect(orders[0]!.map((d) => (JSON.parse(d) as { revision: number }).revision)).toEqual(revisions);
    const etags = await Promise.all(replicas.map(async (r) => (await sync(r)).headers.etag));
    expect(new Set(etags).size).toBe(1);
    for (const s of streams) s.close();
  });

  it('Last-Event-ID replays on a replica that started after the writes (history lives in the database)', async () => {
    const a = await replica();
    for (let i = 0; i < 5; i++) await admin(a, 'PUT', `/services/shop/configs/c.k${i}`, { value: i });
    const late = await replica();
    const stream = await openStream(late, { slug: 'shop', key: TEST_KEYS.shopSecret, lastEventId: 3 });
    expect(stream.status).toBe(200);
    const resync = await stream.event(1);
    expect(resync.event).toBe('resync');
    expect(JSON.parse(resync.data)).toEqual({ revision: 3 });
    await stream.until((r) => r.events.filter((e) => e.event === 'patch').length === 3, 'the replayed patches');
    expect(stream.events.filter((e) => e.event === 'patch').map((e) => e.id)).toEqual(['4', '5', '6']);
    stream.close();
  });

  it('every replica sees its peers and their open streams (the fleet view the rebalancer and /metrics read)', async () => {
    const a = await replica({ replicaId: 'replica-a' });
    const b = await replica({ replicaId: 'replica-b' });
    const streams = await Promise.all([1, 2, 3].map(() => openStream(a, { slug: 'shop', key: TEST_KEYS.shopSecret })));
    await until(
      async () => {
        const metrics = await call(b, { path: '/metrics' });
        return /vane_fleet_replica_streams\{replica="replica-a"\} 3\b/.test(metrics.text);
      },
      "replica B's metrics showing A's three streams",
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    for (const stream of streams) stream.close();
  });

  it('a console login on one replica is a login on every replica', async () => {
    const a = await replica();
    const b = await replica();
    const login = await call(a, {
      method: 'POST',
      path: '/console/login',
      body: new URLSearchParams({ token: ADMIN_TOKEN }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
    });
    expect(login.status).toBe(303);
    const cookie = String(login.headers['set-cookie']).split(';')[0]!;
    const onB = await call(b, { path: '/console/api/session', headers: { cookie } });
    expect(onB.status).toBe(200);
    expect(onB.json()).toHaveProperty('csrf_token');
    // A cookie signed by another fleet's key is no login.
    const forged = await call(b, { path: '/console/api/session', headers: { cookie: `${cookie.slice(0, -4)}AAAA` } });
    expect(forged.status).not.toBe(200);
    // The signing keys are derived from the root key: a replica started later accepts the login too, and the
    // database holds no key to steal.
    const c = await replica();
    expect((await call(c, { path: '/console/api/session', headers: { cookie } })).status).toBe(200);
    const sql = (await import('postgres')).default(url, { max: 1 });
    const columns = await sql<{ column_name: string }[]>`
      SELECT column_name FROM information_schema.columns WHERE table_name LIKE 'vane_%'`;
    await sql.end();
    // Key ids (root_keys) are published; no column holds a signing key.
    expect(columns.map((row) => row.column_name).filter((name) => /sign/.test(name))).toEqual([]);
  });

  it('a scoped admin token made through one replica works on every replica, its use recorded', async () => {
    const a = await replica();
    const b = await replica();
    const made = await admin(a, 'POST', '/tokens', { name: 'ci-read', scope: { projects: ['*'] }, rights: ['read'] });
    expect(made.status).toBe(201);
    const token = made.json<{ token: string }>().token;
    await until(
      async () => (await call(b, { path: '/admin/v1/tenant', admin: token })).status === 200,
      'B accepting the token',
    );
    expect((await call(b, { method: 'PUT', path: '/admin/v1/tenant', admin: token, body: {} })).status).toBe(403);
  });

  it('a key revoked through one replica is refused by every replica', async () => {
    const a = await replica();
    const b = await replica();
    expect((await sync(b)).status).toBe(200);
    await admin(a, 'DELETE', `/services/shop/keys/${TEST_KEYS.shopSecret}`);
    await until(async () => (await sync(b)).status === 401, 'replica B refusing the revoked key');
  });

  it('the write rate limit is the tenant’s, not each replica’s', async () => {
    const a = await replica();
    const b = await replica();
    await admin(a, 'PUT', '/tenant', { write_rate_per_minute: 3 });
    const put = (server: VaneServer, i: number) =>
      call(server, {
        method: 'PUT',
        path: '/v1/secrets/rate.k',
        slug: 'shop',
        key: TEST_KEYS.shopSecret,
        body: { value: `v${i}` },
      });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await put(i % 2 === 0 ? a : b, i)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('a flag schedule boundary makes exactly one revision, whichever replicas are up', async () => {
    const a = await replica();
    const b = await replica();
    const startsAt = new Date(Date.now() + 1500).toISOString();
    const set = await admin(a, 'PUT', '/services/shop/flags/launch', { is_enabled: true, starts_at: startsAt });
    const revision = (set.json() as { revision: number }).revision;
    const stream = await openStream(b, { slug: 'shop', key: TEST_KEYS.shopSecret });
    await stream.event(1);
    const turned = await stream.find(
      (e) => e.event === 'patch' && (JSON.parse(e.data) as { revision: number }).revision === revision + 1,
      'the boundary revision',
    );
    expect(JSON.parse(turned.data)).toMatchObject({ flags: { launch: { is_active: true } } });
    // Give the other replica's timer every chance to commit a second revision: it must not.
    await until(
      () => a.revision('shop') === revision + 1 && b.revision('shop') === revision + 1,
      'both replicas at the boundary revision',
    );
    await admin(a, 'PUT', '/services/shop/configs/after', { value: 1 });
    expect(a.revision('shop')).toBe(revision + 2);
    stream.close();
  });

  it('PostgreSQL down: reads and streams go on, writes get 503 with Retry-After, replicas catch up after', async () => {
    const a = await replica();
    const b = await replica();
    const stream = await openStream(b, { slug: 'shop', key: TEST_KEYS.shopSecret });
    await stream.event(1);
    await pg.pause();
    try {
      expect((await sync(a)).status).toBe(200);
      const refused = await admin(a, 'PUT', '/services/shop/configs/down', { value: 1 });
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBeDefined();
      expect(refused.json()).toMatchObject({ error: 'store_unavailable' });
      // Nothing half written: the refused value is not served.
      expect((await sync(a)).json()).not.toHaveProperty(['configs', 'down']);
    } finally {
      await pg.resume();
    }
    let accepted: unknown;
    await until(
      async () => {
        const answer = await admin(a, 'PUT', '/services/shop/configs/up', { value: 2 });
        accepted = answer.status === 200 ? answer.json() : undefined;
        return accepted !== undefined;
      },
      'a write accepted after PostgreSQL came back',
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(accepted).toEqual({ revision: 2 });
    await stream.find((e) => e.event === 'patch', 'the patch on B after the outage');
    stream.close();
  });

  it('a replica started while PostgreSQL is down refuses to start, saying why', async () => {
    await pg.pause();
    try {
      await expect(replica()).rejects.toMatchObject({
        code: 'VANE_SERVER_STORE_UNREACHABLE',
        message: expect.stringMatching(/cannot reach PostgreSQL at postgres:\/\/fleet_\d+:\*\*\*@127\.0\.0\.1/),
      });
    } finally {
      await pg.resume();
    }
  });

  it('export and import move a file journal into PostgreSQL and back, into empty stores only', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vane-transfer-'));
    try {
      const file = await startVaneServer({ statePath: join(dir, 'state.json'), seed: testSeed(), rootKey: ROOT_KEY });
      await admin(file, 'PUT', '/services/shop/configs/moved.value', { value: 'from-file' });
      const before = (await sync(file)).json();
      const testSeedServices = file.services().length;
      await file.close();
      await writeFile(
        join(dir, 'export.json'),
        await exportStore(`file:${join(dir, 'state.json')}`, { rootKey: ROOT_KEY }),
      );
      expect(await importStore(url, join(dir, 'export.json'), { rootKey: ROOT_KEY })).toEqual({
        services: testSeedServices,
      });
      await expect(importStore(url, join(dir, 'export.json'), { rootKey: ROOT_KEY })).rejects.toMatchObject({
        code: 'VANE_SERVER_STORE_REFUSED',
        message: expect.stringContaining('already holds data'),
      });
      const onPostgres = await replica({ seed: undefined });
      const moved = (await sync(onPostgres)).json();
      expect(moved['configs']).toEqual(before['configs']);
      expect(moved['secrets']).toEqual(before['secrets']);
      await onPostgres.close();
      await writeFile(join(dir, 'back.json'), await exportStore(url, { rootKey: ROOT_KEY }));
      // Sealed, both ways: no secret value and no API key in an export.
      for (const name of ['export.json', 'back.json']) {
        const text = await readFile(join(dir, name), 'utf8');
        for (const canary of [...Object.values(TEST_SECRET_VALUES), TEST_KEYS.shopSecret])
          expect(text).not.toContain(canary);
      }
      await importStore(`file:${join(dir, 'back.json.state')}`, join(dir, 'back.json'), { rootKey: ROOT_KEY });
      const back = await startVaneServer({ statePath: join(dir, 'back.json.state'), rootKey: ROOT_KEY });
      expect((await sync(back)).json()['configs']).toEqual(before['configs']);
      await back.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  describe('drift: each replica compares what it serves with the store and its peers', () => {
    /** Each replica's change log and store, in start order: what a test corrupts or holds back. */
    let attached: Array<{ log: PostgresChangeLog; store: Store }>;
    let warnings: string[];
    const original = PostgresChangeLog.prototype.attach;
    beforeEach(() => {
      attached = [];
      warnings = [];
      jest.spyOn(PostgresChangeLog.prototype, 'attach').mockImplementation(function (this: PostgresChangeLog, store) {
        attached.push({ log: this, store });
        return original.call(this, store);
      });
    });
    afterEach(() => jest.restoreAllMocks());

    /** A replica with a short drift bound, its warnings collected. */
    const drifting = (replicaId: string) =>
      replica({
        replicaId,
        storeCheckIntervalMs: 500,
        driftBoundMs: 1500,
        // One stream on one of three replicas is an excess the rebalancer would move: not this test's subject.
        rebalance: false,
        logger: { info: () => undefined, warn: (m) => warnings.push(`${replicaId}: ${m}`), error: () => undefined },
      });
    /** Polls `/readyz` until it says `ready`; the answer's body. */
    const readyz = async (server: VaneServer, ready: boolean): Promise<string> => {
      let body = '';
      await until(
        async () => {
          const answer = await call(server, { path: '/readyz' });
          body = answer.text;
          return (answer.status === 200) === ready;
        },
        `/readyz ${ready ? 'ready' : 'not ready'}`,
        { timeoutMs: 20_000, intervalMs: 25 },
      );
      return body;
    };
    /** Stops a replica applying what others commit (a lost notification, a history gap): only a reload helps. */
    const holdBack = (log: PostgresChangeLog) =>
      jest
        .spyOn((log as unknown as { applied: { catchUp(): Promise<void> } }).applied, 'catchUp')
        .mockResolvedValue(undefined);

    it('a replica whose memory differs from its peers at the same change reports it, reloads, and is ready again', async () => {
      const a = await drifting('a');
      const b = await drifting('b');
      const c = await drifting('c');
      await admin(a, 'PUT', '/services/shop/configs/db.pool.max', { value: 42 });
      await until(() => b.revision('shop') === 2 && c.revision('shop') === 2, 'every replica at revision 2');
      const stream = await openStream(b, { slug: 'shop', key: TEST_KEYS.shopSecret });
      await stream.event(1);
      // A bug's effect: B serves a value nobody committed, at the same revision.
      attached[1]!.store.service('shop')!.configs.set('db.pool.max', 999);
      expect((await sync(b)).json()).toMatchObject({ configs: { 'db.pool.max': 999 } });

      const unready = await readyz(b, false);
      expect(JSON.parse(unready)).toMatchObject({
        ready: false,
        checks: expect.arrayContaining([
          {
            name: 'drift',
            ok: false,
            detail: expect.stringMatching(/over 1500 ms: shop \(revision 2 served with a digest 2 of 2 peers/),
          },
        ]),
      });
      expect((await b.metrics.scrape()).body).toMatch(/vane_service_drift_seconds\{service="shop"\} [1-9]/);
      await readyz(b, true);
      expect((await sync(b)).json()).toEqual((await sync(a)).json());
      expect((await b.metrics.scrape()).body).toContain('vane_service_drift_seconds{service="shop"} 0');
      // Its streams are told to sync; the sound replicas never turned unready or reloaded.
      await stream.until((r) => r.events.filter((e) => e.event === 'resync').length === 2, 'a resync after the reload');
      expect((await call(a, { path: '/readyz' })).status).toBe(200);
      expect((await call(c, { path: '/readyz' })).status).toBe(200);
      expect(warnings).toEqual([
        expect.stringMatching(/^b: service shop has differed from the store for \d+ s: revision 2/),
      ]);
      expect(warnings.join('\n')).not.toContain('999');
      stream.close();
    });

    it('replicas that missed commits (every one of them behind) see the head ahead, reload, and serve the latest', async () => {
      const a = await drifting('a');
      const b = await drifting('b');
      for (const { log } of attached) holdBack(log);
      const stream = await openStream(a, { slug: 'shop', key: TEST_KEYS.shopSecret });
      await stream.event(1);
      // The writer leaves: no replica left serves what the store holds.
      const writer = await replica({ replicaId: 'writer' });
      await admin(writer, 'PUT', '/services/shop/configs/missed', { value: 'yes' });
      expect(a.revision('shop')).toBe(1);
      expect(b.revision('shop')).toBe(1);
      // Watched from now: closing the writer may take longer than the bound on a loaded machine.
      const unready = Promise.all([readyz(a, false), readyz(b, false)]);
      await writer.close();

      const [onA, onB] = await unready;
      for (const body of [onA, onB]) expect(body).toContain('shop (revision 1 served, 2 committed)');
      expect((await a.metrics.scrape()).body).toContain('vane_replica_revision_lag{service="shop"} 1');
      await Promise.all([readyz(a, true), readyz(b, true)]);
      await until(
        async () => (await a.metrics.scrape()).body.includes('vane_replica_revision_lag{service="shop"} 0'),
        'the lag back to 0 at the next check',
      );
      expect(a.revision('shop')).toBe(2);
      expect(b.revision('shop')).toBe(2);
      expect((await sync(a)).json()).toMatchObject({ configs: { missed: 'yes' } });
      expect((await sync(b)).text).toBe((await sync(a)).text);
      const resync = await stream.find((e) => e.event === 'resync' && e.id === '2', 'the resync to revision 2');
      expect(JSON.parse(resync.data)).toEqual({ revision: 2 });
      expect(warnings.sort()).toEqual([
        expect.stringMatching(
          /^a: service shop has differed from the store for \d+ s: revision 1 served, 2 committed$/,
        ),
        expect.stringMatching(
          /^b: service shop has differed from the store for \d+ s: revision 1 served, 2 committed$/,
        ),
      ]);
      stream.close();
    });
  });

  it('audit verify reads the chain from the database and names an entry edited in a row', async () => {
    const a = await replica();
    await admin(a, 'PUT', '/services/shop/configs/audited.one', { value: 1 });
    await admin(a, 'PUT', '/services/shop/configs/audited.two', { value: 2 });
    await a.close();
    const verify = async (argv: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; text: string }> => {
      const lines: string[] = [];
      const code = await auditVerify(
        argv,
        (l) => lines.push(l),
        (l) => lines.push(l),
        env,
      );
      return { code, text: lines.join('\n') };
    };
    // The fleet's chain is keyed: verifying it takes the root key.
    expect((await verify([], { VANE_STORE: url })).code).toBe(2);
    const intact = await verify([], { VANE_STORE: url, VANE_ROOT_KEY: ROOT_KEY });
    expect(intact).toMatchObject({ code: 0, text: expect.stringMatching(/^audit intact: \d+ entries/) });
    expect(await verify(['--store', 'postgres://vane:hunter2@127.0.0.1/x'], {})).toMatchObject({
      code: 2,
      text: expect.not.stringContaining('hunter2'),
    });
    const sql = (await import('postgres')).default(url, { max: 1 });
    const [row] = await sql<{ seq: number; record: string }[]>`
      SELECT seq, record FROM vane_changes WHERE record LIKE '%audited.two%' ORDER BY seq DESC LIMIT 1`;
    const record = JSON.parse(row!.record) as { audit: { seq: number; actor: string } };
    record.audit.actor = 'someone-else';
    await sql`UPDATE vane_changes SET record = ${JSON.stringify(record)} WHERE seq = ${row!.seq}`;
    await sql.end();
    const broken = await verify([], { VANE_STORE: url, VANE_ROOT_KEY: ROOT_KEY });
    expect(broken.code).toBe(1);
    expect(broken.text).toContain(`audit broken at entry ${record.audit.seq}`);
    expect(broken.text).toContain('edited');
  });

  it('refuses a database whose schema is newer than the server', async () => {
    const a = await replica();
    await a.close();
    const sql = (await import('postgres')).default(url, { max: 1 });
    await sql`UPDATE vane_schema SET version = 999`;
    await sql.end();
    await expect(replica()).rejects.toMatchObject({
      code: 'VANE_SERVER_STORE_REFUSED',
      message: expect.stringContaining('schema is version 999'),
    });
  });
});

describe('a file store has one owner', () => {
  it('a second server on the same state file refuses to start, naming the process that holds it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vane-owner-'));
    const statePath = join(dir, 'state.json');
    const first = await startVaneServer({ statePath, seed: testSeed() });
    try {
      await expect(startVaneServer({ statePath })).rejects.toMatchObject({
        code: 'VANE_SERVER_STORE_REFUSED',
        message: expect.stringContaining(`pid ${process.pid}`),
      });
    } finally {
      await first.close();
    }
    // Closed, it is free again.
    const second = await startVaneServer({ statePath });
    await second.close();
    await rm(dir, { recursive: true, force: true });
  });
});
