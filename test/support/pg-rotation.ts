/**
 * The password rotation every adapter must survive, written once: under a
 * continuous load, the role's password changes in PostgreSQL and then in
 * Vane; the pool is rebuilt with no failed request, the old pool is ended
 * and the server's connections come back to the pool size. Then a wrong
 * password is pushed: the pool in service stays, the failure is reported,
 * and the next correct value recovers.
 */
import type { LiveResource, LiveResourceEvent, VaneClient } from '@vane/client';
import type { VaneServerSeed } from '@vane/server';
import type { Pool } from 'pg';
import { startLoad } from './load.js';
import type { TestPostgres } from './postgres.js';

/** The role the apps connect as. */
export const PG_ROLE = 'app';
/** `max` of every pool the apps build: the connections the server sees once a pool has warmed up under load. */
export const PG_POOL_MAX = 3;
/** The passwords of the scenario, in order. None may appear in a log, an error or an event. */
export const PG_PASSWORDS = {
  initial: 'pw-initial-7Qx2',
  rotated: 'pw-rotated-Lm91',
  wrong: 'pw-wrong-Zk40',
  recovered: 'pw-recovered-Hd63',
} as const;
/** The API key of the seed's service. */
export const PG_SERVICE_KEY = 'svs_orders_pg_rotation_key_001';

/** Creates the role (with the initial password) in a fresh cluster. */
export async function createRole(pg: TestPostgres): Promise<void> {
  await pg.query(`CREATE ROLE ${PG_ROLE} LOGIN PASSWORD '${PG_PASSWORDS.initial}'`);
}

/** A backend service `orders` whose configs and secret say how to reach the test cluster. */
export function pgSeed(pg: TestPostgres): VaneServerSeed {
  return {
    tenant: { overdue_days: 0, ab_addon: false, quarantined_until: null, write_rate_per_minute: 600 },
    services: {
      orders: {
        kind: 'backend',
        keys: [PG_SERVICE_KEY],
        configs: { 'db.host': pg.host, 'db.port': pg.port, 'db.user': PG_ROLE, 'db.name': 'postgres' },
        secrets: { 'db.password': { type: 'text', value: PG_PASSWORDS.initial } },
      },
    },
  };
}

/** The app under test, as the scenario drives it. */
export interface RotationApp {
  /** A route answering 200 after one query on the pool in service. */
  readonly url: string;
  /** The app's Vane client (the secret writes go through it). */
  readonly client: VaneClient;
  /** The live pool the route borrows. */
  readonly pool: LiveResource<Pool>;
  /** Everything the app logged so far. */
  logs(): string;
}

function nextEvent<K extends LiveResourceEvent['type']>(
  resource: LiveResource<unknown>,
  type: K,
  timeoutMs = 15_000,
): Promise<Extract<LiveResourceEvent, { type: K }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no ${type} event within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = resource.onEvent((e) => {
      if (e.type !== type) return;
      clearTimeout(timer);
      off();
      resolve(e as Extract<LiveResourceEvent, { type: K }>);
    });
  });
}

/** Waits until the cluster has exactly `count` connections of the role (bounded, re-checked every 50 ms). */
export async function connectionsBecome(pg: TestPostgres, count: number, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let seen = await pg.connections(PG_ROLE);
  while (seen !== count) {
    if (Date.now() > deadline) throw new Error(`the role has ${seen} connections, not ${count}, after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    seen = await pg.connections(PG_ROLE);
  }
}

/** Runs the whole scenario against one app (jest assertions inside). */
export async function rotatePasswordUnderLoad(pg: TestPostgres, app: RotationApp): Promise<void> {
  const events: LiveResourceEvent[] = [];
  const off = app.pool.onEvent((e) => events.push(e));
  const load = startLoad(app.url, { concurrency: 2 * PG_POOL_MAX, maxRequests: 50_000, maxMs: 90_000 });
  try {
    // Warm: the pool has opened all its connections.
    await load.more(50);
    await connectionsBecome(pg, PG_POOL_MAX);

    // Rotation: PostgreSQL first (open sessions stay), then Vane.
    const first = app.pool.current;
    const rebuilt = nextEvent(app.pool, 'rebuilt');
    const disposed = nextEvent(app.pool, 'disposed');
    await pg.query(`ALTER ROLE ${PG_ROLE} PASSWORD '${PG_PASSWORDS.rotated}'`);
    await app.client.setSecret('db.password', PG_PASSWORDS.rotated);
    await expect(rebuilt).resolves.toMatchObject({ generation: 2, keys: ['db.password'] });
    expect(app.pool.current).not.toBe(first);
    await load.more(100);
    await expect(disposed).resolves.toMatchObject({ generation: 1, drained: true });
    expect(first.ended).toBe(true);
    await connectionsBecome(pg, PG_POOL_MAX);

    // A wrong password: the pool in service stays, the failure is reported.
    const second = app.pool.current;
    const failed = nextEvent(app.pool, 'rebuild-failed');
    await app.client.setSecret('db.password', PG_PASSWORDS.wrong);
    const failure = await failed;
    expect(failure.error).toMatchObject({ code: 'VANE_LIVE_RESOURCE_BUILD_FAILED', stage: 'ready' });
    expect(failure.error.cause).toMatchObject({ code: '28P01' });
    expect(app.pool.status.failures).toBeGreaterThanOrEqual(1);
    expect(app.pool.status.lastError?.code).toBe('VANE_LIVE_RESOURCE_BUILD_FAILED');
    expect(app.pool.current).toBe(second);
    await load.more(100);
    expect(app.logs()).toContain('ready failed');

    // The next correct value recovers.
    const recovered = nextEvent(app.pool, 'rebuilt');
    const secondDisposed = nextEvent(app.pool, 'disposed');
    await pg.query(`ALTER ROLE ${PG_ROLE} PASSWORD '${PG_PASSWORDS.recovered}'`);
    await app.client.setSecret('db.password', PG_PASSWORDS.recovered);
    await expect(recovered).resolves.toMatchObject({ generation: 3 });
    expect(app.pool.status).toMatchObject({ state: 'ready', failures: 0, lastError: null });
    await load.more(100);
    await expect(secondDisposed).resolves.toMatchObject({ generation: 2, drained: true });
    expect(second.ended).toBe(true);
  } finally {
    const report = await load.stop();
    off();
    // Zero failed requests, through the rotation and the wrong password alike.
    expect(report).toMatchObject({ failed: 0, failures: [] });
    expect(report.ok).toBeGreaterThan(350);
  }
  await connectionsBecome(pg, PG_POOL_MAX);
  // Each old pool was disposed of once; the failed one never served.
  expect(events.filter((e) => e.type === 'disposed').map((e) => e.generation)).toEqual([1, 2]);
  const reported = [
    app.logs(),
    ...events.map((e) => JSON.stringify(e)),
    ...events.flatMap((e) => ('error' in e && e.error ? messages(e.error) : [])),
  ].join('\n');
  for (const password of Object.values(PG_PASSWORDS)) expect(reported).not.toContain(password);
}

function messages(err: unknown): string[] {
  const out: string[] = [];
  for (let e = err; e instanceof Error; e = e.cause) out.push(`${e.name}: ${e.message}`);
  return out;
}
