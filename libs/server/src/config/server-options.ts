import { DEFAULT_REBALANCE } from '../fleet/rebalancer.js';
import { VANE_SERVER_DEFAULTS as DEFAULTS } from '../server/vane-server-options.js';
import type { ConfigSchema, ConfigValues } from './load-config.js';
import { ProxyTrust } from '../ops/proxy-trust.js';
import { OutboundPolicy } from '../outbound/outbound-policy.js';
import { parseListenAddress } from '../ops/listen-address.js';
import { integerOption, listOption, secretOption, stringOption } from './option-spec.js';
import { parseStoreSetting } from '../server/store-setting.js';

const listenAddress = (value: string): string | undefined => {
  const address = parseListenAddress(value);
  return typeof address === 'string' ? address : undefined;
};

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
    default: { 'vane-server': '0.0.0.0', 'vane-local-server': DEFAULTS.host },
  }),
  adminToken: secretOption({
    description: 'admin API token, from VANE_ADMIN_TOKEN or the file --admin-token-file names',
    defaultText: 'vane-local-server: generated and printed; vane-server: required',
  }),
  pingIntervalMs: integerOption({
    description: "interval of the stream's `: ping` keep-alive",
    default: DEFAULTS.pingIntervalMs,
    min: 1,
    max: 3_600_000,
  }),
  sessionTtlMs: integerOption({
    description: 'lifetime of workload-identity sessions',
    default: DEFAULTS.sessionTtlMs,
    min: 1000,
    max: 86_400_000,
  }),
  // Under a second would cut off slow but honest clients; 0 would switch Node's check off.
  headersTimeoutMs: integerOption({
    description: "time a client has to send a request's headers (then 408); open streams are never cut",
    default: DEFAULTS.headersTimeoutMs,
    min: 1000,
    max: 3_600_000,
  }),
  requestTimeoutMs: integerOption({
    description: 'time a client has to send a whole request (then 408), at least --headers-timeout-ms',
    default: DEFAULTS.requestTimeoutMs,
    min: 1000,
    max: 3_600_000,
  }),
  trustProxy: listOption({
    description:
      'proxies whose X-Forwarded-For/-Host/-Proto are believed: addresses, CIDRs, loopback, linklocal, uniquelocal',
    valueName: 'LIST',
    default: [],
    check: (entry) => ProxyTrust.check(entry),
  }),
  allowOutbound: listOption({
    description:
      'what trusts may request besides public https hosts: origins (http://127.0.0.1:8080) and networks (10.20.0.0/16)',
    valueName: 'LIST',
    default: [],
    check: (entry) => OutboundPolicy.check(entry),
  }),
  publicUrl: stringOption({
    description: "services' public base URL, {slug} standing for the slug (https://{slug}.vane.acme.internal)",
    valueName: 'TEMPLATE',
    default: undefined,
    defaultText: 'http://{slug}.localhost:<port>',
    check: (value) => {
      if (!value.includes('{slug}')) return 'must contain {slug}';
      try {
        const url = new URL(value.replaceAll('{slug}', 'slug'));
        return url.protocol === 'http:' || url.protocol === 'https:' ? undefined : 'expected an http or https URL';
      } catch {
        return 'not a URL';
      }
    },
  }),
  adminListen: stringOption({
    description: 'serve the admin API and console on this HOST:PORT only (never on the service port)',
    valueName: 'HOST:PORT',
    default: undefined,
    defaultText: 'on the main port',
    check: listenAddress,
  }),
  opsListen: stringOption({
    description: 'serve /healthz, /readyz and /metrics on this HOST:PORT (plain HTTP)',
    valueName: 'HOST:PORT',
    default: undefined,
    defaultText: 'the admin listener if any, else the main port',
    check: listenAddress,
  }),
  tlsCert: stringOption({
    description: 'PEM certificate chain: serve HTTPS, reloaded when the file changes (with --tls-key)',
    valueName: 'FILE',
    default: undefined,
    defaultText: 'plain HTTP',
  }),
  tlsKey: stringOption({
    description: 'PEM private key of --tls-cert',
    valueName: 'FILE',
    default: undefined,
    defaultText: 'none',
  }),
  drainWindowMs: integerOption({
    description: 'on SIGTERM, streams are asked to reconnect at times spread over this window',
    default: { 'vane-server': DEFAULTS.drainWindowMs, 'vane-local-server': 2000 },
    min: 0,
    max: 600_000,
  }),
  drainTimeoutMs: integerOption({
    description: 'after the window, how long in-flight requests may take before the process exits',
    default: DEFAULTS.drainTimeoutMs,
    min: 0,
    max: 600_000,
  }),
  rebalanceIntervalMs: integerOption({
    description: "how often streams above this replica's fair share of the fleet are moved (0: never)",
    default: DEFAULT_REBALANCE.intervalMs,
    min: 0,
    max: 3_600_000,
  }),
  rootKeyFile: stringOption({
    description:
      'root keys sealing secrets at rest (base64, one a line, the first seals); the key itself may come from VANE_ROOT_KEY instead, never from the command line',
    valueName: 'FILE',
    default: undefined,
    defaultText: 'VANE_ROOT_KEY, else FILE.root-key beside a state file (made on its first start)',
  }),
  replicaId: stringOption({
    description: "this replica's name in the fleet and its metrics",
    valueName: 'NAME',
    default: undefined,
    defaultText: 'host name, pid and a random suffix',
  }),
  logFormat: stringOption({
    description: 'json (one object a line) or text (messages only)',
    valueName: 'FORMAT',
    default: { 'vane-server': 'json', 'vane-local-server': 'text' },
    check: (value) => (value === 'json' || value === 'text' ? undefined : 'expected json or text'),
  }),
  logLevel: stringOption({
    description: 'debug, info, warn or error',
    valueName: 'LEVEL',
    default: 'info',
    check: (value) =>
      ['debug', 'info', 'warn', 'error'].includes(value) ? undefined : 'expected debug, info, warn or error',
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
      (config.tlsCert === undefined) !== (config.tlsKey === undefined)
        ? { option: config.tlsCert === undefined ? 'tlsKey' : 'tlsCert', problem: 'give both --tls-cert and --tls-key' }
        : undefined,
    (config) =>
      config.requestTimeoutMs < config.headersTimeoutMs
        ? {
            option: 'requestTimeoutMs',
            problem: `must be at least --headers-timeout-ms (${config.headersTimeoutMs})`,
          }
        : undefined,
  ],
};
