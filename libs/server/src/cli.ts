#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { consoleLogger } from './logger.js';
import { DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS, startLocalServer } from './local-server.js';
import { redactKey } from './domain/store.js';
import { readFileSync } from 'node:fs';
import { auditVerify } from './commands/audit-verify.js';
import { rotateRootKey } from './commands/rotate-root-key.js';
import { RootKeyError } from './sealing/root-key-error.js';
import { RootKeyMissingError } from './sealing/root-key-missing-error.js';

const USAGE = `Usage: vane-local-server [--seed FILE] [--port 4400] [--host 127.0.0.1] [--state FILE] [--root-key-file FILE]
       vane-server rotate-root-key [--url URL]     (see vane-server rotate-root-key --help)
       vane-server audit verify --state FILE       (see vane-server audit verify --help)

  --seed FILE           seed file (JSON, PROTOCOL §11); default: no services
  --port N              TCP port (0 picks a free one); default 4400
  --host ADDRESS        interface to listen on; default 127.0.0.1
  --state FILE          persist every change to FILE, secrets sealed, and reload it on start (FILE wins over --seed)
  --root-key-file FILE  root keys sealing the state (base64, one a line, the first seals); default $VANE_ROOT_KEY,
                        else FILE.root-key beside the state (made on its first start); never a key on the command line
  --admin-token-file FILE  the owner admin token; default $VANE_ADMIN_TOKEN, else a generated one (printed)
  --ping-interval-ms N  stream keep-alive interval; default 15000
  --session-ttl-ms N    lifetime of workload-identity sessions; default 3600000
  --headers-timeout-ms N   time a client has to send a request's headers (then 408); default 10000
  --request-timeout-ms N   time a client has to send a whole request (then 408); default 30000,
                           at least --headers-timeout-ms; open streams are never cut by either
  --help                show this text`;

/** The exit code of a start refused for its root key (missing, wrong, or not a key). */
const EXIT_ROOT_KEY = 3;

/** Runs the command line; resolves with the exit code it wants when it cannot start. */
async function main(argv: string[]): Promise<number> {
  const print = (line: string): void => console.log(line);
  const printError = (line: string): void => console.error(line);
  if (argv[0] === 'rotate-root-key') return rotateRootKey(argv.slice(1), process.env, print, printError);
  if (argv[0] === 'audit' && argv[1] === 'verify') return auditVerify(argv.slice(2), print, printError);
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        seed: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        state: { type: 'string' },
        'admin-token': { type: 'string' },
        'admin-token-file': { type: 'string' },
        'root-key-file': { type: 'string' },
        'ping-interval-ms': { type: 'string' },
        'session-ttl-ms': { type: 'string' },
        'headers-timeout-ms': { type: 'string' },
        'request-timeout-ms': { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (error) {
    // Never echo a stray argument: it is often a token whose option name was mistyped (`--admin-token= t0ken`).
    const positional = (error as { code?: unknown }).code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL';
    console.error(
      `${positional ? 'unexpected argument: every argument is an option (--name value or --name=value)' : (error as Error).message}\n\n${USAGE}`,
    );
    return 2;
  }
  if (values['help']) {
    console.log(USAGE);
    return 0;
  }
  const port = integerOption(values['port'], 4400, '--port', 65_535);
  const pingIntervalMs = integerOption(values['ping-interval-ms'], 15_000, '--ping-interval-ms', 3_600_000);
  const sessionTtlMs = integerOption(values['session-ttl-ms'], 3_600_000, '--session-ttl-ms', 86_400_000);
  const headersTimeoutMs = integerOption(
    values['headers-timeout-ms'],
    DEFAULT_HEADERS_TIMEOUT_MS,
    '--headers-timeout-ms',
    3_600_000,
  );
  const requestTimeoutMs = integerOption(
    values['request-timeout-ms'],
    DEFAULT_REQUEST_TIMEOUT_MS,
    '--request-timeout-ms',
    3_600_000,
  );
  if (
    port === undefined ||
    pingIntervalMs === undefined ||
    sessionTtlMs === undefined ||
    headersTimeoutMs === undefined ||
    requestTimeoutMs === undefined
  ) {
    return 2;
  }
  if (sessionTtlMs < 1000) {
    console.error(`--session-ttl-ms must be at least 1000\n\n${USAGE}`);
    return 2;
  }
  // A timeout under a second would cut off slow but honest clients; 0 would disable Node's check altogether.
  for (const [name, value] of [
    ['--headers-timeout-ms', headersTimeoutMs],
    ['--request-timeout-ms', requestTimeoutMs],
  ] as const) {
    if (value < 1000) {
      console.error(`${name} must be at least 1000\n\n${USAGE}`);
      return 2;
    }
  }
  if (requestTimeoutMs < headersTimeoutMs) {
    console.error(`--request-timeout-ms must be at least --headers-timeout-ms (${headersTimeoutMs})\n\n${USAGE}`);
    return 2;
  }

  if (values['admin-token'] !== undefined) {
    // Never echoed: a token on the command line is readable by every user of the machine (ps).
    console.error(
      'vane-local-server: --admin-token is refused: a token on the command line is visible to every user (ps); ' +
        'set VANE_ADMIN_TOKEN or --admin-token-file',
    );
    return 2;
  }
  let givenToken: string | undefined;
  try {
    givenToken =
      typeof values['admin-token-file'] === 'string'
        ? readFileSync(values['admin-token-file'], 'utf8').trim()
        : process.env['VANE_ADMIN_TOKEN'];
  } catch (error) {
    console.error(`vane-local-server: cannot read --admin-token-file: ${(error as Error).message}`);
    return 2;
  }
  let server;
  try {
    server = await startLocalServer({
      seed: values['seed'] as string | undefined,
      statePath: values['state'] as string | undefined,
      rootKey: process.env['VANE_ROOT_KEY'] || undefined,
      rootKeyFile: values['root-key-file'] as string | undefined,
      port,
      host: (values['host'] as string | undefined) ?? '127.0.0.1',
      adminToken: givenToken || undefined,
      pingIntervalMs,
      sessionTtlMs,
      headersTimeoutMs,
      requestTimeoutMs,
      logger: consoleLogger,
    });
  } catch (error) {
    console.error(`vane-local-server: ${(error as Error).message}`);
    // A missing or wrong root key has its own code, so a supervisor can tell it from a crash and stop restarting.
    return error instanceof RootKeyMissingError || error instanceof RootKeyError ? EXIT_ROOT_KEY : 1;
  }

  console.log(`vane-local-server listening on ${server.url}`);
  console.log(`admin API: ${server.url}/admin/v1/  token: ${givenToken ? '(as given)' : server.adminToken}`);
  console.log(`web console: ${server.url}/console/  (log in with the admin token)`);
  for (const { slug, kind, keys } of server.services()) {
    console.log(
      `service ${slug} (${kind}): ${server.baseUrl(slug)}  keys: ${keys.map(redactKey).join(', ') || 'none'}`,
    );
  }

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: closing`);
    server.close().then(
      () => process.exit(0),
      (error: Error) => {
        console.error(`vane-local-server: ${error.message}`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  return -1;
}

function integerOption(
  raw: string | boolean | undefined,
  fallback: number,
  name: string,
  max: number,
): number | undefined {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || value > max) {
    console.error(`${name}: expected an integer from 0 to ${max}, received "${String(raw)}"`);
    return undefined;
  }
  return value;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: Error) => {
    console.error(`vane-local-server: ${error.message}`);
    process.exitCode = 1;
  },
);
