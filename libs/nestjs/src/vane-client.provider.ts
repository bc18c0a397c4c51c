import { Logger, type Provider } from '@nestjs/common';
import { VaneClient, type VaneClientOptions, type VaneLogger } from '@vane/client';
import type { VaneModuleOptions } from './interfaces/vane-module-options.interface.js';
import { VANE_LOGGER, VANE_MODULE_OPTIONS } from './vane.constants.js';
import { createNestVaneLogger } from './vane-logger.js';
import { drainTimeoutOf } from './vane-lifecycle.service.js';

const HINTS: Readonly<Record<string, string>> = {
  VANE_UNAUTHORIZED:
    'wrong key: set apiKey to a secret key (svs_…) of this very service, as shown in the console; a key of another service or a revoked key is refused too',
  VANE_NOT_FOUND: 'wrong slug: baseUrl must be the base URL shown for the service in the console (https://<slug>.…)',
  VANE_BILLING_OVERDUE:
    'billing: the tenant has invoices overdue by more than 14 days; settle them in the console, then restart',
  VANE_TRANSPORT:
    'unreachable: check baseUrl, DNS, proxy settings (HTTPS_PROXY/NO_PROXY) and firewalls, or raise timeoutMs; to start during an outage from the last snapshot, set lastKnownGood',
  VANE_RATE_LIMITED: 'rate limited: too many starts at once; retry after the delay the error gives',
  VANE_QUARANTINED: 'quarantined: this caller is quarantined by the service; retry after the date the error gives',
  VANE_INVALID_ARGUMENT: 'invalid option: fix the option the message names',
  VANE_UNEXPECTED_RESPONSE: 'unexpected answer: is baseUrl the Vane service and not a proxy or another site?',
};

/**
 * What to do about an initial-sync failure, by error `code`.
 * @returns a sentence for people, or undefined for a code without advice.
 */
export function initialSyncHint(code: string | undefined): string | undefined {
  return code === undefined ? undefined : HINTS[code];
}

/** Splits the module options into the client's own. @internal */
export function clientOptionsOf(options: VaneModuleOptions, logger: VaneLogger): VaneClientOptions {
  const {
    abContext: _abContext,
    flagException: _flagException,
    startupCheck: _startupCheck,
    mirrorToConfigService: _mirror,
    healthMaxSnapshotAgeMs: _healthMaxSnapshotAgeMs,
    drainTimeoutMs: _drainTimeoutMs,
    consistentReads: _consistentReads,
    ...client
  } = options;
  return { ...client, logger: options.logger ?? logger };
}

/**
 * Builds the client and runs its blocking initial sync. A failure is logged
 * with what to fix and rethrown as is (the client's typed error, e.g.
 * `UnauthorizedError` with `code: 'VANE_UNAUTHORIZED'`): the app does not start.
 * @internal
 */
export async function createVaneClient(
  options: VaneModuleOptions,
  logger: VaneLogger,
  create: (o: VaneClientOptions) => Promise<VaneClient> = (o) => VaneClient.create(o),
): Promise<VaneClient> {
  try {
    drainTimeoutOf(options); // checked before anything is started
    return await create(clientOptionsOf(options, logger));
  } catch (err) {
    const code = (err as { code?: unknown } | null)?.code;
    const hint = initialSyncHint(typeof code === 'string' ? code : undefined);
    const message = err instanceof Error ? err.message : String(err);
    new Logger('Vane').error(
      `initial sync failed, the app cannot start${typeof code === 'string' ? ` (${code})` : ''}: ${message}${hint ? `\n  What to do: ${hint}` : ''}`,
    );
    throw err;
  }
}

/** The client's logger: the user's `logger` option, else a Nest `Logger('Vane')`. @internal */
export const vaneLoggerProvider: Provider = {
  provide: VANE_LOGGER,
  useFactory: (options: VaneModuleOptions): VaneLogger => options.logger ?? createNestVaneLogger(),
  inject: [VANE_MODULE_OPTIONS],
};

/** The client, injectable by class: `constructor(private readonly vane: VaneClient)`. @internal */
export const vaneClientProvider: Provider = {
  provide: VaneClient,
  useFactory: (options: VaneModuleOptions, logger: VaneLogger) => createVaneClient(options, logger),
  inject: [VANE_MODULE_OPTIONS, VANE_LOGGER],
};
