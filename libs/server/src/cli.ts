#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { consoleLogger } from './logger.js';
import { DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS, startLocalServer } from './local-server.js';
import { redactKey } from './domain/store.js';
import { runStoreTransfer } from './commands/store-transfer.js';

const USAGE = `Usage: vane-local-server [--seed FILE] [--port 4400] [--host 127.0.0.1] [--state FILE] [--admin-token TOKEN]
       vane-local-server export [--store STORE] [--out FILE]    the whole state, as a state file
       vane-local-server import [--store STORE] FILE            into an empty store

  --seed FILE           seed file (JSON, PROTOCOL §11); default: no services
  --port N              TCP port (0 picks a free one); default 4400
  --host ADDRESS        interface to listen on; default 127.0.0.1
  --state FILE          persist every change to FILE and reload it on start (FILE wins over --seed);
                        the same as --store file:FILE
  --store STORE         memory | file:PATH | postgres://user@host:port/db (a fleet of replicas);
                        default $VANE_STORE, else memory. Give a password in $VANE_STORE or $PGPASSWORD,
                        never on the command line
  --admin-token TOKEN   admin API token; default $VANE_ADMIN_TOKEN, else a generated one (printed)
  --ping-interval-ms N  stream keep-alive interval; default 15000
  --session-ttl-ms N    lifetime of workload-identity sessions; default 3600000
  --headers-timeout-ms N   time a client has to send a request's headers (then 408); default 10000
  --request-timeout-ms N   time a client has to send a whole request (then 408); default 30000,
                           at least --headers-timeout-ms; open streams are never cut by either
  --help                show this text`;

/** Runs the command line; resolves with the exit code it wants when it cannot start. */
async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'export' || argv[0] === 'import') return await transfer(argv[0], argv.slice(1));
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        seed: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        state: { type: 'string' },
        store: { type: 'string' },
        'admin-token': { type: 'string' },
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

  const givenToken = (values['admin-token'] as string | undefined) ?? process.env['VANE_ADMIN_TOKEN'];
  let server;
  try {
    server = await startLocalServer({
      seed: values['seed'] as string | undefined,
      statePath: values['state'] as string | undefined,
      store:
        (values['store'] as string | undefined) ??
        (values['state'] ? undefined : process.env['VANE_STORE'] || undefined),
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
    return 1;
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

/** `export [--store STORE] [--out FILE]` and `import [--store STORE] FILE`. */
async function transfer(command: 'export' | 'import', argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { store: { type: 'string' }, out: { type: 'string' } },
      allowPositionals: command === 'import',
      strict: true,
    });
  } catch (error) {
    console.error(`vane-server ${command}: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const store = parsed.values.store ?? (process.env['VANE_STORE'] || undefined);
  return await runStoreTransfer(command, store, { out: parsed.values.out, file: parsed.positionals[0] });
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
