/**
 * A real nginx for tests: the Debian binary in the foreground (`daemon off`)
 * with a generated config in a temp directory (pid, logs and temp paths
 * there), on a free loopback port, proxying to a set of upstream ports with
 * the operating guide's own nginx block (docs/operating.md, read by `test/support/readme-nginx.ts`: only
 * its addresses replaced), so every fleet test runs what users copy.
 * Stopped (and its directory removed) by `stop()`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort } from './free-port.js';
import { adaptNginxBlock, guideFleetBlock } from './readme-nginx.js';

const INSTALL_HINT =
  'install it with `sudo apt-get install -y nginx-light` (Debian/Ubuntu) or `brew install nginx` (macOS)';

/** How long nginx may take to start accepting, on a loaded machine. */
const START_WAIT_MS = 20_000;

/** Absolute path of `nginx`: on PATH, else /usr/sbin/nginx (Debian keeps it off a user's PATH); undefined when missing. */
export function findNginx(): string | undefined {
  for (const dir of [...(process.env['PATH'] ?? '').split(delimiter), '/usr/sbin']) {
    if (!dir) continue;
    const candidate = join(dir, 'nginx');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this directory.
    }
  }
  return undefined;
}

/**
 * `describe` for specs that need a real nginx. Outside CI, without nginx,
 * the block is skipped with one line saying how to install it; in CI
 * (`CI=true`) it runs and fails, so CI never silently passes without it.
 */
export function describeWithNginx(name: string, body: () => void): void {
  if (findNginx() !== undefined || process.env['CI'] === 'true') {
    describe(name, body);
    return;
  }
  console.warn(`nginx is not installed: skipping "${name}"; ${INSTALL_HINT}`);
  describe.skip(name, body);
}

/** A running nginx in front of some upstreams. */
export interface TestNginx {
  readonly port: number;
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** What nginx wrote to its error log so far (`no live upstreams`, failed connections…). */
  errorLog(): Promise<string>;
  /** What nginx wrote to its access log so far (a request is logged when it ends); empty without `accessLogFormat`. */
  accessLog(): Promise<string>;
  stop(): Promise<void>;
}

/** Options of {@link startNginx}. */
export interface NginxOptions {
  /**
   * The `upstream` and `server` blocks, given the loopback port nginx must
   * listen on and the upstreams' ports. @default the operating guide's block
   */
  site?: (port: number, upstreams: readonly number[]) => string;
  /**
   * An access log in this `log_format` (in the `http` block, so a given
   * `site` inherits it), read with {@link TestNginx.accessLog}. @default no access log
   */
  accessLogFormat?: string;
  /**
   * Adds `X-Upstream-Addr: $upstream_addr` to every answer: the replicas
   * that handled a request, several when nginx passed it on after one
   * failed (the fault schedule records it). @default false
   */
  upstreamHeader?: boolean;
}

/** The config {@link startNginx} runs: `upstreams` are loopback ports. */
export function nginxConfig(
  dir: string,
  port: number,
  upstreams: readonly number[],
  options: NginxOptions = {},
): string {
  const site =
    options.site ?? ((listen, ports) => adaptNginxBlock(guideFleetBlock(), { upstreams: ports, httpPort: listen }));
  return [
    'daemon off;',
    // As root the workers would run as `nobody`, who cannot write the private temp directory.
    ...(process.getuid?.() === 0 ? ['user root root;'] : []),
    'worker_processes 1;',
    `pid ${join(dir, 'nginx.pid')};`,
    `error_log ${join(dir, 'error.log')} warn;`,
    // Every stream holds two connections (client and upstream): room for thousands of streams.
    'worker_rlimit_nofile 20000;',
    'events { worker_connections 8192; }',
    'http {',
    ...(options.accessLogFormat === undefined
      ? ['  access_log off;']
      : [`  log_format test '${options.accessLogFormat}';`, `  access_log ${join(dir, 'access.log')} test;`]),
    `  client_body_temp_path ${join(dir, 'client_body')};`,
    `  proxy_temp_path ${join(dir, 'proxy')};`,
    `  fastcgi_temp_path ${join(dir, 'fastcgi')};`,
    `  uwsgi_temp_path ${join(dir, 'uwsgi')};`,
    `  scgi_temp_path ${join(dir, 'scgi')};`,
    options.upstreamHeader
      ? site(port, upstreams).replace(
          /^([ \t]*)proxy_pass (.*)$/m,
          '$1proxy_pass $2\n$1add_header X-Upstream-Addr $upstream_addr always;',
        )
      : site(port, upstreams),
    '}',
    '',
  ].join('\n');
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Resolves once `port` accepts a connection; rejects when `child` exits first or after `timeoutMs`. */
async function waitAccepting(
  child: ChildProcess,
  port: number,
  timeoutMs: number,
  output: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  child.once('exit', () => (exited = true));
  while (!(await accepts(port))) {
    if (exited) throw new Error(`nginx exited before accepting on ${port}:\n${output()}`);
    if (Date.now() > deadline) throw new Error(`nginx not accepting on ${port} after ${timeoutMs} ms:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function stopProcess(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    // Fast shutdown: the master ends its workers and open connections.
    child.kill('SIGTERM');
  });
}

/** Starts nginx in front of `upstreams` (loopback ports) and waits until it accepts connections. */
export async function startNginx(upstreams: readonly number[], options: NginxOptions = {}): Promise<TestNginx> {
  const binary = findNginx();
  if (binary === undefined) throw new Error(`nginx is not installed (required when CI=true); ${INSTALL_HINT}`);
  const dir = await mkdtemp(join(tmpdir(), 'vane-nginx-'));
  const configPath = join(dir, 'nginx.conf');
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const config = nginxConfig(dir, port, upstreams, options);
    await writeFile(configPath, config);
    // -e: the error log before the config is read, instead of the compiled-in /var/log/nginx path.
    const child = spawn(binary, ['-p', dir, '-e', join(dir, 'error.log'), '-c', configPath], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    try {
      await waitAccepting(child, port, START_WAIT_MS, () => output);
    } catch (error) {
      await stopProcess(child, 5000);
      const log = await readFile(join(dir, 'error.log'), 'utf8').catch(() => '');
      // Another process may have taken the port between the probe and the start: try another.
      if (attempt < 3 && /Address already in use/.test(output + log)) continue;
      await rm(dir, { recursive: true, force: true });
      throw new Error(`${(error as Error).message}\nerror.log:\n${log}`, { cause: error });
    }
    return {
      port,
      url: `http://127.0.0.1:${port}`,
      errorLog: () => readFile(join(dir, 'error.log'), 'utf8').catch(() => ''),
      accessLog: () => readFile(join(dir, 'access.log'), 'utf8').catch(() => ''),
      async stop() {
        await stopProcess(child, 10_000);
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
}
