import { DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_SESSION_TTL_MS } from '../local-server.js';
import type { ConfigSchema, ConfigValues } from './load-config.js';
import { integerOption, secretOption, stringOption } from './option-spec.js';
import { parseStoreSetting } from './store-setting.js';

/** The settings of `vane-server serve`, one place for flags, environment, config file, defaults and help. */
export const SERVER_OPTIONS = {
  seed: stringOption({
    description: 'seed file (JSON, PROTOCOL §11)',
    valueName: 'FILE',
    default: undefined,
    defaultText: 'no services',
  }),
  store: stringOption({
    description: 'where data lives: memory, file:PATH (state file and journal) or postgres://…',
    valueName: 'STORE',
    default: 'memory',
    check: (value) => {
      const setting = parseStoreSetting(value);
      return typeof setting === 'string' ? setting : undefined;
    },
  }),
  port: integerOption({ description: 'TCP port (0 picks a free one)', default: 4400, min: 0, max: 65_535 }),
  host: stringOption({
    description: 'interface to listen on',
    valueName: 'ADDRESS',
    default: { 'vane-server': '0.0.0.0', 'vane-local-server': '127.0.0.1' },
  }),
  adminToken: secretOption({
    description: 'admin API token, from VANE_ADMIN_TOKEN or the file --admin-token-file names',
    defaultText: 'vane-local-server: generated and printed; vane-server: required',
  }),
  pingIntervalMs: integerOption({
    description: "interval of the stream's `: ping` keep-alive",
    default: 15_000,
    min: 1,
    max: 3_600_000,
  }),
  sessionTtlMs: integerOption({
    description: 'lifetime of workload-identity sessions',
    default: DEFAULT_SESSION_TTL_MS,
    min: 1000,
    max: 86_400_000,
  }),
  // Under a second would cut off slow but honest clients; 0 would switch Node's check off.
  headersTimeoutMs: integerOption({
    description: "time a client has to send a request's headers (then 408); open streams are never cut",
    default: DEFAULT_HEADERS_TIMEOUT_MS,
    min: 1000,
    max: 3_600_000,
  }),
  requestTimeoutMs: integerOption({
    description: 'time a client has to send a whole request (then 408), at least --headers-timeout-ms',
    default: DEFAULT_REQUEST_TIMEOUT_MS,
    min: 1000,
    max: 3_600_000,
  }),
};

/** The settings of the server command, resolved. */
export type ServerConfig = ConfigValues<typeof SERVER_OPTIONS>;

/** The server's settings with their aliases and the checks across them. */
export const SERVER_SCHEMA: ConfigSchema<typeof SERVER_OPTIONS> = {
  options: SERVER_OPTIONS,
  aliases: {
    state: {
      target: 'store',
      description: 'the same as --store file:FILE',
      valueName: 'FILE',
      map: (path) => `file:${path}`,
    },
  },
  checks: [
    (config) =>
      config.requestTimeoutMs < config.headersTimeoutMs
        ? {
            option: 'requestTimeoutMs',
            problem: `must be at least --headers-timeout-ms (${config.headersTimeoutMs})`,
          }
        : undefined,
  ],
};
