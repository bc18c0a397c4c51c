import { consoleLogger } from '../logger.js';
import { startLocalServer, type LocalServer } from '../local-server.js';
import { redactKey } from '../domain/store.js';
import { loadServerConfig } from '../config/load-server-config.js';
import type { CliCommand, CommandContext } from './cli-command.js';

/** `vane-server [serve]`: starts the server with the settings read, and runs until SIGINT or SIGTERM. */
export const serveCommand: CliCommand = {
  name: 'serve',
  usage: '[serve] [options]',
  summary: 'start the server (the default command)',
  async run(context: CommandContext): Promise<number | 'running'> {
    const { program, out, err } = context;
    const { values: config } = loadServerConfig(context);
    let server: LocalServer;
    try {
      server = await startLocalServer({
        seed: config.seed,
        store: config.store,
        port: config.port,
        host: config.host,
        adminToken: config.adminToken,
        pingIntervalMs: config.pingIntervalMs,
        sessionTtlMs: config.sessionTtlMs,
        headersTimeoutMs: config.headersTimeoutMs,
        requestTimeoutMs: config.requestTimeoutMs,
        logger: consoleLogger,
      });
    } catch (error) {
      err(`${program}: ${(error as Error).message}`);
      return 1;
    }

    out(`${program} listening on ${server.url}`);
    out(`admin API: ${server.url}/admin/v1/  token: ${config.adminToken ? '(as given)' : server.adminToken}`);
    out(`web console: ${server.url}/console/  (log in with the admin token)`);
    for (const { slug, kind, keys } of server.services()) {
      out(`service ${slug} (${kind}): ${server.baseUrl(slug)}  keys: ${keys.map(redactKey).join(', ') || 'none'}`);
    }

    let stopping = false;
    const stop = (signal: string): void => {
      if (stopping) return;
      stopping = true;
      out(`${signal}: closing`);
      server.close().then(
        () => process.exit(0),
        (error: Error) => {
          err(`${program}: ${error.message}`);
          process.exit(1);
        },
      );
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
    return 'running';
  },
};
