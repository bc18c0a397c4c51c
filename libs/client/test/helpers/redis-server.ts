import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/**
 * A real `redis-server` for tests: on a free loopback port, in a fresh temp
 * directory, with persistence off; stopped (and its directory removed) by
 * `stop()`.
 */
export interface TestRedis {
  readonly port: number;
  readonly url: string;
  stop(): Promise<void>;
}

const INSTALL_HINT =
  'install it with `sudo apt-get install -y redis-server` (Debian/Ubuntu) or `brew install redis` (macOS)';

/** Absolute path of `redis-server` on PATH, or undefined. */
export function findRedisServer(): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'redis-server');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this directory.
    }
  }
  return undefined;
}

let announced = false;

/**
 * `describe` for specs that need a real Redis. Outside CI, without
 * `redis-server` on PATH, the block is skipped with one line saying how to
 * install it; in CI (`CI=true`) it runs and fails, so CI never silently
 * passes without them.
 */
export function describeWithRedis(name: string, body: () => void): void {
  if (findRedisServer() !== undefined || process.env['CI'] === 'true') {
    describe(name, body);
    return;
  }
  if (!announced) {
    announced = true;
    console.warn(`redis-server is not on PATH: skipping the Redis specs ("${name}"…); ${INSTALL_HINT}`);
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

function waitReady(child: ChildProcess, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => fail(new Error(`redis-server not ready after ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (output.includes('Ready to accept connections')) done();
    };
    const onExit = (code: number | null): void =>
      fail(new Error(`redis-server exited (${code}) before ready:\n${output}`));
    const cleanup = (): void => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
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
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
    child.once('error', fail);
  });
}

/** Starts `redis-server`; throws (with the install hint) when it is missing. */
export async function startRedis(): Promise<TestRedis> {
  const binary = findRedisServer();
  if (binary === undefined) throw new Error(`redis-server is not on PATH (required when CI=true); ${INSTALL_HINT}`);
  const dir = await mkdtemp(join(tmpdir(), 'vane-redis-'));
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const child = spawn(
      binary,
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      await waitReady(child, 10_000);
    } catch (err) {
      child.kill('SIGKILL');
      // Another process may have taken the port between the probe and the start: try another.
      if (attempt < 3) continue;
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
    child.stdout?.resume();
    child.stderr?.resume();
    return {
      port,
      url: `redis://127.0.0.1:${port}`,
      async stop() {
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
          child.kill('SIGTERM');
          await exited;
        }
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
}
