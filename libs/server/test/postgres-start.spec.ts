import { describeWithPostgres } from '../../../test/support/postgres.js';
import { freePort } from '../../../test/support/free-port.js';
import { startVaneServer, type VaneServer } from '../src/index.js';
import { runCli } from '../src/commands/run-cli.js';
import { TEST_KEYS, testSeed } from '../src/testing/index.js';
import { usePostgresAndTempDir } from './support/postgres-and-temp-dir.js';

// Two servers and a database on a loaded two-core machine.
jest.setTimeout(60_000);

const ROOT_KEY = Buffer.alloc(32, 5).toString('base64');

/** `vane-server` run in this process with `env`; its exit code and what it printed. */
async function serve(env: NodeJS.ProcessEnv): Promise<{ code: number | 'running'; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli('vane-server', ['--port', '0'], {
    env,
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('vane-server on a PostgreSQL that does not answer', () => {
  it('exits 4 with one line naming the store (password redacted) and saying nothing started', async () => {
    const port = await freePort();
    const { code, out, err } = await serve({
      VANE_STORE: `postgres://vane:hunter2-password@127.0.0.1:${port}/vane`,
      VANE_ADMIN_TOKEN: 'an-admin-token-for-exit-4',
      VANE_ROOT_KEY: ROOT_KEY,
    });
    expect(code).toBe(4);
    expect(out).toBe('');
    expect(err).toMatch(
      new RegExp(`^vane-server: cannot reach PostgreSQL at postgres://vane:\\*\\*\\*@127\\.0\\.0\\.1:${port}/vane`),
    );
    expect(err).toContain('nothing was started (exit 4');
    expect(err).not.toContain('hunter2-password');
  });
});

describeWithPostgres('the start lines of a replica that did not write the seed', () => {
  const setup = usePostgresAndTempDir('vane-start-lines-');

  it('report every active key, redacted, though the replica knows them only hashed', async () => {
    const url = await setup.pg.createDatabase('start_lines');
    const servers: VaneServer[] = [];
    try {
      const common = { store: url, seed: testSeed(), adminToken: 'fleet-admin-token', rootKey: ROOT_KEY };
      servers.push(await startVaneServer(common));
      // A restart: the keys in the database are hashes; this process never saw them in full.
      servers.push(await startVaneServer(common));
      const shop = servers[1]!.services().find((s) => s.slug === 'shop')!;
      expect(shop.keys).toEqual([]);
      expect(shop.keyHints).toEqual([
        `svs_…${TEST_KEYS.shopSecret.slice(-4)}`,
        `svp_…${TEST_KEYS.shopPublic.slice(-4)}`,
      ]);
      expect(shop.keyHints).toEqual(servers[0]!.services().find((s) => s.slug === 'shop')!.keyHints);
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
  });
});
