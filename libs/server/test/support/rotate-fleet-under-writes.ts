import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from 'pg';
import { startVaneServer, type VaneServer } from '../../src/index.js';
import { rootKey } from '../../src/sealing/keyring.js';
import { TEST_KEYS, testSeed, until } from '../../src/testing/index.js';
import { admin, call } from './http-client.js';

/** What {@link rotateFleetUnderWrites} found once every replica had applied everything. */
export interface FleetRotationUnderWrites {
  /** `replica: secret` pairs that did not come back with the value written (empty when all did). */
  readonly unreadable: string[];
  /** Statuses other than 200 among the rotations, and among the writes other than 503 and 504. */
  readonly refused: number[];
  /** Writes answered 503 or 504 (past their deadline on a loaded machine). */
  readonly lateWrites: number;
  /** Writes made. */
  readonly writes: number;
  /** What each replica's `GET /admin/v1/sealing` said at the end. */
  readonly sealing: Array<{ root_key: string; other_root_keys: string[]; missing_root_key: string | null }>;
  /** The ids of the old and the new root key. */
  readonly oldId: string;
  readonly newId: string;
  /** Change rows and snapshots that still name the old root key. */
  readonly storedWithOldKey: number;
  /** Every secret as a replica started later with the new key alone reads it (unreadable ones listed). */
  readonly unreadableByNewReplica: string[];
  /** What a replica given neither key was refused with, and whether the database was left byte for byte as it was. */
  readonly wrongKeyRefusal: { error: unknown; databaseUntouched: boolean };
}

const SERVICES = [
  { slug: 'shop', key: TEST_KEYS.shopSecret },
  // No secret before the writes: its first one makes its data key, on whichever replica takes it.
  { slug: 'other', key: TEST_KEYS.otherSecret },
] as const;

/**
 * Three replicas on one database: A and B read their root key from a key
 * file, C from `VANE_ROOT_KEY` holding the old key and the new one (old
 * first). `writes` secret writes go to the three at once; half way, A and B's
 * key files get the new key first, A is asked to rotate (it reads its file
 * again) and B and C each rotate a data key. Then every replica reads every
 * secret; a replica given the new key alone starts and reads them too; one
 * given neither key is refused and changes nothing.
 */
export async function rotateFleetUnderWrites(
  url: string,
  dir: string,
  writes: number,
): Promise<FleetRotationUnderWrites> {
  const oldKey = randomBytes(32).toString('base64');
  const newKey = randomBytes(32).toString('base64');
  const oldId = rootKey(Buffer.from(oldKey, 'base64')).id;
  const newId = rootKey(Buffer.from(newKey, 'base64')).id;
  const seed = testSeed();
  seed.tenant!.write_rate_per_minute = 1_000_000;
  const fileA = join(dir, 'a.root-key');
  const fileB = join(dir, 'b.root-key');
  await writeFile(fileA, `${oldKey}\n`, { mode: 0o600 });
  await writeFile(fileB, `${oldKey}\n`, { mode: 0o600 });
  const common = { store: url, seed, adminToken: 'fleet-admin-token', storeCheckIntervalMs: 200 };
  const started: VaneServer[] = [];
  const errors: string[] = [];
  const db = new Client({ connectionString: url });
  await db.connect();
  const query = async <R extends Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<R[]> =>
    (await db.query<R>(sql, params)).rows;
  const start = async (options: { rootKey?: string; rootKeyFile?: string }): Promise<VaneServer> => {
    const name = 'ABCDEFG'[started.length]!;
    const logger = {
      info: () => undefined,
      warn: (m: string) => errors.push(`${name} warn: ${m}`),
      error: (m: string) => errors.push(`${name} error: ${m}`),
    };
    const server = await startVaneServer({ ...common, ...options, logger });
    started.push(server);
    return server;
  };
  try {
    const a = await start({ rootKeyFile: fileA });
    const b = await start({ rootKeyFile: fileB });
    const c = await start({ rootKey: `${oldKey},${newKey}` });
    const replicas = [a, b, c];
    const refused: number[] = [];
    const check = (answer: { status: number }): void => {
      if (answer.status !== 200) refused.push(answer.status);
    };
    // A write past its 2 s deadline on a loaded machine answers 503 (never committed) or 504 (outcome unknown):
    // its own definite meaning, counted apart; the rotations and anything else must succeed.
    const lateWrites = new Map<number, number>();
    const checkWrite = (n: number, answer: { status: number }): void => {
      if (answer.status === 503 || answer.status === 504) lateWrites.set(n, answer.status);
      else check(answer);
    };
    const pending: Array<Promise<void>> = [];
    const writeNext = async (n: number): Promise<void> => {
      const service = SERVICES[n % 4 === 0 ? 1 : 0];
      checkWrite(
        n,
        await call(replicas[n % 3]!, {
          method: 'PUT',
          path: `/v1/secrets/r.${n}`,
          slug: service.slug,
          key: service.key,
          body: { value: `v-${n}` },
        }),
      );
      if (n === Math.floor(writes / 2)) {
        pending.push(
          (async () => {
            await writeFile(fileA, `${newKey}\n${oldKey}\n`);
            await writeFile(fileB, `${newKey}\n${oldKey}\n`);
            // Refused (409) until every replica's heartbeat reports the new key: B reads its file at its next check.
            let answer = await admin(a, 'POST', '/root-key/rotate', {});
            const deadline = Date.now() + 20_000;
            while (answer.status === 409 && Date.now() < deadline) {
              await new Promise((resolve) => setTimeout(resolve, 50));
              answer = await admin(a, 'POST', '/root-key/rotate', {});
            }
            check(answer);
          })(),
          admin(b, 'POST', '/services/shop/data-key/rotate').then(check),
          admin(c, 'POST', '/services/other/data-key/rotate').then(check),
        );
      }
    };
    // 16 writers per replica: a steady load rather than 1,000 requests queued at once behind one another.
    let next = 0;
    const writers = Array.from({ length: 48 }, async () => {
      while (next < writes) await writeNext(next++);
    });
    await Promise.all(writers);
    await Promise.all(pending);
    // Every replica has applied every commit once all show the same revisions.
    await until(
      () => SERVICES.every(({ slug }) => new Set(replicas.map((r) => r.revision(slug))).size === 1),
      'every replica at the same revisions',
      { timeoutMs: 20_000, intervalMs: 50 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}; the replicas said:\n${errors.join('\n')}`);
    });
    const unreadable: string[] = [];
    const readAll = async (server: VaneServer, name: string): Promise<void> => {
      const values = new Map<string, string | undefined>();
      for (const { slug, key } of SERVICES) {
        const sync = await call(server, { path: '/v1/sync', slug, key });
        const secrets = sync.json<{ secrets: Record<string, { value: string }> }>().secrets;
        for (const [secret, { value }] of Object.entries(secrets)) values.set(`${slug}/${secret}`, value);
      }
      for (let n = 0; n < writes; n++) {
        const slug = SERVICES[n % 4 === 0 ? 1 : 0].slug;
        const late = lateWrites.get(n);
        // A 504 may have landed or not; a 503 never did, and never will.
        if (late === 504) continue;
        const expected = late === 503 ? undefined : `v-${n}`;
        if (values.get(`${slug}/r.${n}`) !== expected) unreadable.push(`${name}: ${slug}/r.${n}`);
      }
    };
    for (const [i, server] of replicas.entries()) await readAll(server, 'ABC'[i]!);
    const sealing = await Promise.all(
      replicas.map(async (r) => (await admin(r, 'GET', '/sealing')).json<FleetRotationUnderWrites['sealing'][0]>()),
    );
    const [stored] = await query<{ count: number }>(
      `SELECT ((SELECT count(*) FROM vane_changes WHERE record LIKE $1) +
        (SELECT count(*) FROM vane_snapshots WHERE data LIKE $1))::int AS count`,
      [`%${oldId}%`],
    );

    const late = await start({ rootKey: newKey });
    const before = unreadable.length;
    await readAll(late, 'late');
    const unreadableByNewReplica = unreadable.splice(before);

    const digest = async (): Promise<string> => {
      const rows = await query<{ digest: string }>(
        `SELECT md5(coalesce((SELECT string_agg(seq || ':' || record, ',' ORDER BY seq) FROM vane_changes), '') ||
          coalesce((SELECT string_agg(seq || ':' || data, ',' ORDER BY seq) FROM vane_snapshots), '')) AS digest`,
      );
      return rows[0]!.digest;
    };
    const beforeRefusal = await digest();
    let error: unknown;
    try {
      await start({ rootKey: randomBytes(32).toString('base64') });
    } catch (caught) {
      error = caught;
    }
    const wrongKeyRefusal = { error, databaseUntouched: (await digest()) === beforeRefusal };
    return {
      unreadable,
      refused,
      lateWrites: lateWrites.size,
      writes,
      sealing,
      oldId,
      newId,
      storedWithOldKey: stored!.count,
      unreadableByNewReplica,
      wrongKeyRefusal,
    };
  } finally {
    await Promise.all(started.map((s) => s.close()));
    await db.end();
  }
}

/** What a rotation under writes on a fleet must leave: see {@link rotateFleetUnderWrites}. */
export function expectRotatedFleet(result: FleetRotationUnderWrites): void {
  expect(result.refused).toEqual([]);
  expect(result.lateWrites).toBeLessThan(result.writes / 2);
  expect(result.unreadable).toEqual([]);
  // Every replica wraps with the new key, holds no data key wrapped by another, and lacks no key.
  expect(result.sealing).toEqual(
    [1, 2, 3].map(() => ({
      sealed: true,
      root_key: result.newId,
      // The rotation B asked for; "other" has one or two data keys, as its first secret and C's rotation fell.
      data_keys: expect.objectContaining({ shop: 'dk2' }) as unknown,
      other_root_keys: [],
      missing_root_key: null,
    })),
  );
  expect(result.storedWithOldKey).toBe(0);
  expect(result.unreadableByNewReplica).toEqual([]);
  expect(result.wrongKeyRefusal.error).toMatchObject({ code: 'VANE_ROOT_KEY_MISSING', keyIds: [result.newId] });
  expect(result.wrongKeyRefusal.databaseUntouched).toBe(true);
}
