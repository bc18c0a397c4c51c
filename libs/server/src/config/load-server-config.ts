import { ConfigError } from '../errors/config-error.js';
import { loadConfig, type LoadConfigInput, type LoadedConfig } from './load-config.js';
import { storeHasPassword } from '../server/store-setting.js';
import { SERVER_SCHEMA, type SERVER_OPTIONS } from './server-options.js';

/**
 * Reads the server's settings ({@link SERVER_SCHEMA}) and applies the rules
 * that depend on the command: `vane-server`, meant for a fleet, requires an
 * admin token, since a generated one would have to be printed to a log.
 */
export function loadServerConfig(input: LoadConfigInput): LoadedConfig<typeof SERVER_OPTIONS> {
  const loaded = loadConfig(SERVER_SCHEMA, input);
  if (loaded.sources.store.kind === 'flag' && storeHasPassword(loaded.values.store)) {
    throw new ConfigError(
      loaded.sources.store.name,
      'a database password is not taken from the command line (any user can read it): put the URL in VANE_STORE or the config file, or the password in PGPASSWORD',
    );
  }
  if (input.program === 'vane-server' && loaded.values.adminToken === undefined) {
    throw new ConfigError(
      'VANE_ADMIN_TOKEN',
      'vane-server needs an admin token: set VANE_ADMIN_TOKEN or --admin-token-file FILE (vane-local-server generates one)',
    );
  }
  if (loaded.values.logFormat === 'json' && loaded.values.adminToken === undefined) {
    throw new ConfigError(
      loaded.sources.logFormat.name,
      'JSON logs need a given admin token (a generated one would be written to the log): set VANE_ADMIN_TOKEN or --admin-token-file FILE',
    );
  }
  return loaded;
}
