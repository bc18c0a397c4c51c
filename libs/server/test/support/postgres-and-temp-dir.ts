/**
 * The setup the fleet-rotation specs share (postgres-root-key-rotation.spec.ts,
 * root-key-rotation.slow-spec.ts), in one place: a PostgreSQL for the
 * describe block and a fresh temp directory for each test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FaultProxy } from '@vane/test-harness';
import { startPostgres, type TestPostgres } from '../../../../test/support/postgres.js';

/** What {@link usePostgresAndTempDir} set up, for the test running now. */
export interface PostgresAndTempDir {
  /** The describe block's PostgreSQL. */
  readonly pg: TestPostgres;
  /** The test's own temp directory. */
  readonly dir: string;
}

/**
 * Called in a describe block (a `describeWithPostgres` one): starts a
 * PostgreSQL before its tests and stops it after them, and gives each test a
 * fresh temp directory named `<dirPrefix>…`, removed after it.
 */
export function usePostgresAndTempDir(dirPrefix: string): PostgresAndTempDir {
  let pg: TestPostgres | undefined;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await pg?.stop();
  });
  const temp = useTempDir(dirPrefix);
  return {
    get pg() {
      if (pg === undefined) throw new Error('PostgreSQL is not up: use it inside a test');
      return pg;
    },
    get dir() {
      return temp.dir;
    },
  };
}

/** Called in a describe block: gives each test a fresh temp directory named `<dirPrefix>…`, removed after it. */
export function useTempDir(dirPrefix: string): { readonly dir: string } {
  let dir: string | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), dirPrefix));
  });
  afterEach(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      if (dir === undefined) throw new Error('no temp directory: use it inside a test');
      return dir;
    },
  };
}

/** A new database of `pg` reached through a TCP {@link FaultProxy}: `url` goes through it, `direct` does not. */
export async function databaseBehindProxy(
  pg: TestPostgres,
  name: string,
): Promise<{ readonly url: string; readonly direct: string; readonly proxy: FaultProxy }> {
  const direct = await pg.createDatabase(name);
  const url = new URL(direct);
  const proxy = await FaultProxy.start(Number(url.port), { protocol: 'tcp' });
  url.port = String(proxy.port);
  return { url: url.toString(), direct, proxy };
}
