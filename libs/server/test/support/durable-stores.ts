/**
 * Runs a describe block once on each store that outlives a restart: a state
 * file, and PostgreSQL (skipped with a line when it is not installed, as
 * `describeWithPostgres` does). Each test gets a fresh store; `options()`
 * gives the same one to every server the test starts, so a restart or a
 * second replica sees what the first wrote.
 */
import { join } from 'node:path';
import { describeWithPostgres } from '../../../../test/support/postgres.js';
import type { VaneServerOptions } from '../../src/index.js';
import { usePostgresAndTempDir, useTempDir } from './postgres-and-temp-dir.js';

/** The store of the running test. */
export interface DurableStore {
  /** `file` or `postgres`. */
  readonly kind: 'file' | 'postgres';
  /** Whether several replicas can share the store (PostgreSQL). */
  readonly fleet: boolean;
  /** The options that open this test's store, with its root key. */
  options(): Pick<VaneServerOptions, 'statePath' | 'store' | 'rootKey'>;
}

/** The root key of every store here: the same for each server, so a restart opens what the last one sealed. */
const ROOT_KEY = Buffer.alloc(32, 9).toString('base64');

let databases = 0;

/** `describe(name)` on a state file, then on PostgreSQL, with the store of each test passed to `body`. */
export function describeOnDurableStores(name: string, body: (store: DurableStore) => void): void {
  describe(`${name} (state file)`, () => {
    const setup = useTempDir('vane-durable-');
    body({
      kind: 'file',
      fleet: false,
      options: () => ({ statePath: join(setup.dir, 'state.json'), rootKey: ROOT_KEY }),
    });
  });
  describeWithPostgres(`${name} (PostgreSQL)`, () => {
    const setup = usePostgresAndTempDir('vane-durable-');
    let url: string | undefined;
    beforeEach(async () => {
      url = await setup.pg.createDatabase(`durable_${process.pid}_${++databases}`);
    });
    body({
      kind: 'postgres',
      fleet: true,
      options: () => {
        if (url === undefined) throw new Error('no database: use the store inside a test');
        return { store: url, rootKey: ROOT_KEY };
      },
    });
  });
}
