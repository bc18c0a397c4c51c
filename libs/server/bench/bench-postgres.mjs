// A throwaway PostgreSQL for the fleet bench: a fresh cluster (initdb) in a temp directory on a free loopback
// port, the same way test/support/postgres.ts starts one for the specs (the bench runs as plain Node, without
// the specs' TypeScript). As root, initdb and postgres run as the `postgres` user, as they insist.
import { execFileSync, spawn } from 'node:child_process';
import { accessSync, chownSync, constants, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import pg from 'pg';

/** Whether `path` is a file this process may run. */
export const executable = (path) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** Directory of `initdb` and `postgres` (PATH, else the newest under /usr/lib/postgresql), or undefined. */
export function findPostgresBin() {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && executable(join(dir, 'initdb')) && executable(join(dir, 'postgres'))) return dir;
  }
  let versions = [];
  try {
    versions = readdirSync('/usr/lib/postgresql');
  } catch {
    return undefined;
  }
  return versions
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => join('/usr/lib/postgresql', v, 'bin'))
    .find((dir) => executable(join(dir, 'initdb')) && executable(join(dir, 'postgres')));
}

/** A free loopback port (free when probed). */
export const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

/**
 * Starts a cluster with pg_stat_statements loaded (it counts every statement of every database); resolves with
 * `createDatabase(name)` (a `postgres://` URL of a fresh role and database), `query(sql, params)` as the
 * superuser, and `stop()`.
 */
export async function startBenchPostgres(bin) {
  const asRoot = process.getuid?.() === 0;
  const user = asRoot
    ? {
        uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
        gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
      }
    : {};
  // As root the cluster belongs to `postgres`, which must reach its directory: under /tmp, not a private tmpdir.
  const dir = mkdtempSync(join('/tmp', 'vane-bench-pg-'));
  if (asRoot) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  execFileSync(
    join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8', '--no-sync'],
    { stdio: 'ignore', ...user },
  );
  const port = await freePort();
  const child = spawn(
    join(bin, 'postgres'),
    [
      ...['-D', data, '-p', String(port), '-k', dir],
      ...['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=100'],
      ...['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track=all'],
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], ...user },
  );
  await new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`postgres not ready:\n${output}`)), 30_000);
    child.stderr.on('data', (chunk) => {
      output += chunk;
      if (output.includes('ready to accept connections')) {
        clearTimeout(timer);
        child.stderr.resume();
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`postgres exited (${code}):\n${output}`)));
  });
  const admin = new pg.Client({ host: dir, port, user: 'postgres', database: 'postgres' });
  await admin.connect();
  const query = async (sql, params) => (await admin.query(sql, params)).rows;
  await query('CREATE EXTENSION pg_stat_statements');
  return {
    query,
    async createDatabase(name) {
      const password = `pw-${name}`;
      await query(`CREATE ROLE "${name}" LOGIN PASSWORD '${password}'`);
      await query(`CREATE DATABASE "${name}" OWNER "${name}"`);
      return `postgres://${name}:${password}@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      await admin.end().catch(() => undefined);
      await new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGINT');
      });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
