import { startVaneServer, type VaneServer, type VaneServerOptions } from '../server/start-vane-server.js';
import type { ConfigValues } from '../config/load-config.js';
import { loadServerConfig } from '../config/load-server-config.js';
import type { SERVER_OPTIONS } from '../config/server-options.js';
import { jsonLogger } from '../ops/json-logger.js';
import { textLogger, type LogLevel } from '../ops/text-logger.js';
import type { LogFields } from '../observability/logger.js';
import { scrubLogText } from '../observability/log-text.js';
import type { CliCommand, CommandContext } from './cli-command.js';
import { RootKeyError } from '../sealing/root-key-error.js';
import { RootKeyMissingError } from '../sealing/root-key-missing-error.js';
import { StoreUnreachableError } from '../errors/store-errors.js';

/** The settings `serve` reads. */
type ServerConfig = ConfigValues<typeof SERVER_OPTIONS>;

/** The exit code of a start refused for its root key (missing, wrong, or not a key). */
const EXIT_ROOT_KEY = 3;
/** The exit code of a start that could not reach its store (PostgreSQL): nothing started; retrying may succeed. */
const EXIT_STORE_UNREACHABLE = 4;
/** The exit code after a rejection nothing handled: a fault, as Node's own exit on one. */
const EXIT_UNHANDLED = 1;

/**
 * `vane-server [serve]`: starts the server with the settings read, and runs
 * until a signal. SIGTERM or SIGINT drains (PROTOCOL §6: `goaway` to every
 * stream, spread over `--drain-window-ms`) and exits 0; a second signal
 * closes at once.
 */
export const serveCommand: CliCommand = {
  name: 'serve',
  usage: '[serve] [options]',
  summary: 'start the server (the default command)',
  async run(context: CommandContext): Promise<number | 'running'> {
    const { program, out, err } = context;
    const { values: config } = loadServerConfig(context);
    const level = config.logLevel as LogLevel;
    const json = config.logFormat === 'json';
    const logger = json ? jsonLogger({ level }) : textLogger(level);
    // What a person reads at start: plain lines in text mode, records in JSON mode.
    const say = (message: string, fields: LogFields): void => (json ? logger.info(message, fields) : out(message));
    // A foreign error's message (a driver's) is printed cleaned: it could carry a connection string or a key.
    const options = serverOptions(config, context.env);
    const known = [options.adminToken, options.rootKey].filter((secret) => secret !== undefined);
    const clean = (message: string): string => scrubLogText(message, known);
    let server: VaneServer;
    try {
      server = await startVaneServer({ ...options, logger });
    } catch (error) {
      if (error instanceof StoreUnreachableError) {
        err(
          `${program}: ${clean(error.message)}; nothing was started (exit ${EXIT_STORE_UNREACHABLE}: start again once it answers)`,
        );
        return EXIT_STORE_UNREACHABLE;
      }
      err(`${program}: ${clean((error as Error).message)}`);
      // A missing or wrong root key has its own code, so a supervisor can tell it from a crash and stop restarting.
      return error instanceof RootKeyMissingError || error instanceof RootKeyError ? EXIT_ROOT_KEY : 1;
    }

    known.push(server.adminToken);
    announce(server, Boolean(config.adminToken), program, say);

    let signals = 0;
    const stop = (signal: string): void => {
      signals++;
      const ending = signals === 1 ? server.drain() : server.close();
      say(signals === 1 ? `${signal}: draining` : `${signal}: closing now`, { event: 'signal', signal });
      ending.then(
        () => process.exit(0),
        (error: Error) => {
          err(`${program}: ${clean(error.message)}`);
          process.exit(1);
        },
      );
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
    // A rejection nothing handled is a fault of ours (or a driver's) with no request to answer for it: say it as a
    // record a supervisor's logs keep, then exit as Node would, so it is restarted and seen rather than hidden.
    // (The one seen so far, a bare `read ECONNRESET` from the PostgreSQL driver, is handled where it arose.)
    process.on('unhandledRejection', (reason) => {
      const message = clean(reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason));
      logger.error(`an unhandled rejection: ${message}; exiting (exit ${EXIT_UNHANDLED})`, {
        event: 'unhandled_rejection',
      });
      process.exit(EXIT_UNHANDLED);
    });
    return 'running';
  },
};

/** The server's settings as the start takes them (the logger apart). */
function serverOptions(config: ServerConfig, env: CommandContext['env']): VaneServerOptions {
  return {
    seed: config.seed,
    store: config.store,
    rootKey: env['VANE_ROOT_KEY'] || undefined,
    rootKeyFile: config.rootKeyFile,
    port: config.port,
    host: config.host,
    adminToken: config.adminToken,
    pingIntervalMs: config.pingIntervalMs,
    sessionTtlMs: config.sessionTtlMs,
    headersTimeoutMs: config.headersTimeoutMs,
    requestTimeoutMs: config.requestTimeoutMs,
    trustProxy: config.trustProxy,
    allowOutbound: config.allowOutbound,
    publicUrl: config.publicUrl,
    adminListen: config.adminListen,
    opsListen: config.opsListen,
    tls: config.tlsCert && config.tlsKey ? { certPath: config.tlsCert, keyPath: config.tlsKey } : undefined,
    drainWindowMs: config.drainWindowMs,
    drainTimeoutMs: config.drainTimeoutMs,
    replicaId: config.replicaId,
    rebalance: config.rebalanceIntervalMs === 0 ? false : { intervalMs: config.rebalanceIntervalMs },
  };
}

/** What a person reads at start: where the service, the admin API, the console, health and each service are. */
function announce(
  server: VaneServer,
  tokenGiven: boolean,
  program: string,
  say: (message: string, fields: LogFields) => void,
): void {
  say(`${program} listening on ${server.url}`, { event: 'listening', url: server.url });
  // A generated token is shown once, to the person who started a local server; JSON mode requires a given one.
  say(`admin API: ${server.adminUrl}/admin/v1/  token: ${tokenGiven ? '(as given)' : server.adminToken}`, {
    event: 'admin_api',
    url: `${server.adminUrl}/admin/v1/`,
  });
  say(`web console: ${server.adminUrl}/console/  (log in with the admin token)`, {
    event: 'console',
    url: `${server.adminUrl}/console/`,
  });
  say(`health: ${server.opsUrl}/healthz, ${server.opsUrl}/readyz; metrics: ${server.opsUrl}/metrics`, {
    event: 'ops',
    url: server.opsUrl,
  });
  for (const { slug, kind, keyHints } of server.services()) {
    // Every active key, redacted, whether this process knows it in full or only its hash (a restart, PostgreSQL).
    const keys = keyHints.length === 0 ? 'none' : `${keyHints.length} (${keyHints.join(', ')})`;
    say(`service ${slug} (${kind}): ${server.baseUrl(slug)}  keys: ${keys}`, {
      event: 'service',
      service: slug,
      kind,
      base_url: server.baseUrl(slug),
    });
  }
}
