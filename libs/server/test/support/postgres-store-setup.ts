/**
 * Runs the server's suite on the PostgreSQL store (`npm run test:slow`): every
 * server a spec starts without a store of its own gets a fresh database of a
 * PostgreSQL started for the spec file. Servers on a state file stay there.
 */
import { startPostgres, type TestPostgres } from '../../../../test/support/postgres.js';
import type * as VaneServerModule from '../../src/server/start-vane-server.js';

let pg: TestPostgres | undefined;
let databases = 0;

jest.mock('../../src/server/start-vane-server.js', () => {
  const actual = jest.requireActual<typeof VaneServerModule>('../../src/server/start-vane-server.js');
  return {
    ...actual,
    startVaneServer: async (options: VaneServerModule.VaneServerOptions = {}) => {
      if (options.store !== undefined || options.statePath !== undefined) return actual.startVaneServer(options);
      if (pg === undefined) throw new Error('PostgreSQL is not up: the setup starts it before every spec');
      const store = await pg.createDatabase(`suite_${process.pid}_${++databases}`);
      return actual.startVaneServer({ rootKey: Buffer.alloc(32, 5).toString('base64'), ...options, store });
    },
  };
});

// Starting a cluster, and then a database per server, takes longer than a memory store on a loaded machine.
jest.setTimeout(30_000);

beforeAll(async () => {
  pg = await startPostgres();
}, 60_000);

afterAll(async () => {
  await pg?.stop();
  pg = undefined;
});
