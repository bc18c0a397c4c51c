import type { Provider } from '@nestjs/common';
import { VaneClient, type VaneClientOptions, type VaneLogger } from '@vane/client';
import { initialSyncFailureLine } from '@vane/client/adapter';
import type { VaneModuleOptions } from './interfaces/vane-module-options.interface.js';
import { VANE_LOGGER, VANE_MODULE_OPTIONS } from './vane.constants.js';
import { createNestVaneLogger } from './vane-logger.js';
import { drainTimeoutOf } from './vane-lifecycle.service.js';
import { checkExceptionFilterOption } from './vane-exception.filter.js';
import { checkUseGlobalInterceptorOption } from './vane-pin.interceptor.js';

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
    exceptionFilter: _exceptionFilter,
    useGlobalInterceptor: _useGlobalInterceptor,
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
    checkExceptionFilterOption(options.exceptionFilter);
    checkUseGlobalInterceptorOption(options.useGlobalInterceptor);
    return await create(clientOptionsOf(options, logger));
  } catch (err) {
    logger.error(initialSyncFailureLine(err));
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
