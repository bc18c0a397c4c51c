import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, readdirSync, realpathSync, statSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { Client } from 'pg';

/**
 * A real PostgreSQL for tests: a fresh cluster (`initdb`) in a temp
 * directory, on a free loopback port, its unix socket in that directory;
 * stopped (and its directory removed) by `stop()`. Local connections of the
 * `postgres` superuser are trusted; TCP connections need a password
 * (SCRAM), so a role's password change is enforced as in production.
 */
export interface TestPostgres {
  /** Always 127.0.0.1. */
  readonly host: string;
  readonly port: number;
  /** Runs SQL as the superuser (over the unix socket), returns the rows. */
  query<R extends Record<string, unknown> = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
  /** Server connections (backends) of a role, from `pg_stat_activity`. */
  connections(user: string): Promise<number>;
  /** A fresh database owned by a fresh role with a password: its `postgres://` URL over TCP. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server, keeping its data: clients see it go down (an outage). */
  pause(): Promise<void>;
  /** Starts the paused server again, on the same port and data. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

const INSTALL_HINT =
  'install it with `sudo apt-get install -y postgresql` (Debian/Ubuntu) or `brew install postgresql` (macOS)';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Directory of `initdb` and `postgres`: on PATH, else the newest under /usr/lib/postgresql (Debian keeps them off PATH). */
export function findPostgresBin(): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (dir && executable(join(dir, 'initdb')) && executable(join(dir, 'postgres'))) return dir;
  }
  let versions: string[];
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

/**
 * A client tool of the same PostgreSQL as {@link findPostgresBin} (`pg_dump`,
 * `pg_restore`): beside the real `initdb`, since a PATH entry may hold links
 * to it (and Debian's /usr/bin ones are wrappers that pick a version of their own).
 */
export function findPostgresTool(name: string): string | undefined {
  const bin = findPostgresBin();
  if (bin === undefined) return undefined;
  const tool = join(dirname(realpathSync(join(bin, 'initdb'))), name);
  return executable(tool) ? tool : undefined;
}

let announced = false;

/**
 * `describe` for specs that need a real PostgreSQL. Outside CI, without
 * PostgreSQL installed, the block is skipped with one line saying how to
 * install it; in CI (`CI=true`) it runs and fails, so CI never silently
 * passes without them.
 */
export function describeWithPostgres(name: string, body: () => void): void {
  if (findPostgresBin() !== undefined || process.env['CI'] === 'true') {
    describe(name, body);
    return;
  }
  if (!announced) {
    announced = true;
    console.warn(
      `PostgreSQL (initdb, postgres) is not installed: skipping the PostgreSQL specs ("${name}"…); ${INSTALL_HINT}`,
    );
  }
  describe.skip(name, body);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** initdb and postgres refuse to run as root: as root, they run as the `postgres` user. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string): number => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new Error('running as root and there is no `postgres` user to run PostgreSQL as (initdb refuses root)');
  }
}

/** True when every directory from `dir` up can be traversed by other users (the `postgres` user, when we are root). */
function traversableByOthers(dir: string): boolean {
  for (let d = dir; ; d = dirname(d)) {
    if ((statSync(d).mode & 0o001) === 0) return false;
    if (dirname(d) === d) return true;
  }
}

function run(binary: string, args: string[], user: { uid: number; gid: number } | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], ...user });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${binary} exited with ${code}:\n${output}`)),
    );
  });
}

function waitReady(child: ChildProcess, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => fail(new Error(`postgres not ready after ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (output.includes('database system is ready to accept connections')) done();
    };
    const onExit = (code: number | null): void => fail(new Error(`postgres exited (${code}) before ready:\n${output}`));
    const cleanup = (): void => {
      clearTimeout(timer);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      child.off('error', fail);
    };
    function done(): void {
      cleanup();
      resolve();
    }
    function fail(err: Error): void {
      cleanup();
      reject(err);
    }
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
    child.once('error', fail);
  });
}

function stopProcess(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    // Fast shutdown: open sessions are ended, no wait for clients to leave.
    child.kill('SIGINT');
  });
}

/** Starts a fresh cluster; throws (with the install hint) when PostgreSQL is missing. */
export async function startPostgres(): Promise<TestPostgres> {
  const bin = findPostgresBin();
  if (bin === undefined) throw new Error(`PostgreSQL is not installed (required when CI=true); ${INSTALL_HINT}`);
  const user = runAs();
  // As root the cluster belongs to `postgres`, which must reach its directory: the run's own temp
  // directory is private (0700), so the cluster goes under the system's temp directory then.
  const base = user === undefined || traversableByOthers(tmpdir()) ? tmpdir() : '/tmp';
  const dir = await mkdtemp(join(base, 'vane-pg-'));
  if (user !== undefined) await chown(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  try {
    await run(
      join(bin, 'initdb'),
      ['-D', data, '-U', 'postgres', '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8', '--no-sync'],
      user,
    );
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  const launch = async (port: number): Promise<ChildProcess> => {
    const child = spawn(
      join(bin, 'postgres'),
      [
        '-D',
        data,
        '-p',
        String(port),
        '-k',
        dir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'fsync=off',
        '-c',
        'max_connections=100',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], ...user },
    );
    try {
      await waitReady(child, 20_000);
    } catch (err) {
      await stopProcess(child, 5000);
      throw err;
    }
    child.stdout?.resume();
    child.stderr?.resume();
    return child;
  };
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    let child: ChildProcess;
    try {
      child = await launch(port);
    } catch (err) {
      // Another process may have taken the port between the probe and the start: try another.
      if (attempt < 3) continue;
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
    let admin = new Client({ host: dir, port, user: 'postgres', database: 'postgres' });
    await admin.connect();
    const query = async <R extends Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]> =>
      (await admin.query<R>(sql, params)).rows;
    return {
      host: '127.0.0.1',
      port,
      query,
      async connections(role) {
        const rows = await query<{ n: number }>(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = $1 AND backend_type = $2',
          [role, 'client backend'],
        );
        return rows[0]!.n;
      },
      async createDatabase(name) {
        const password = `pw-${name}`;
        await query(`CREATE ROLE "${name}" LOGIN PASSWORD '${password}'`);
        await query(`CREATE DATABASE "${name}" OWNER "${name}"`);
        return `postgres://${name}:${password}@127.0.0.1:${port}/${name}`;
      },
      async pause() {
        await admin.end().catch(() => undefined);
        await stopProcess(child, 10_000);
      },
      async resume() {
        child = await launch(port);
        admin = new Client({ host: dir, port, user: 'postgres', database: 'postgres' });
        await admin.connect();
      },
      async stop() {
        await admin.end().catch(() => undefined);
        await stopProcess(child, 10_000);
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
}
