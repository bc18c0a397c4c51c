import type { Provider } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, HttpAdapterHost } from '@nestjs/core';
import type { VaneLogger } from '@vane/client';
import { VaneClient } from '@vane/client';
import { ConfigServiceMirror } from './config-service.mirror.js';
import { FeatureFlagGuard } from './feature-flag.guard.js';
import { FlagPipe } from './flag.pipe.js';
import { VaneHealthIndicator } from './health/vane.health-indicator.js';
import { SecretPipe } from './secret.pipe.js';
import { VANE_CONTEXT_FACTORY, VANE_LOGGER, VANE_MODULE_OPTIONS } from './vane.constants.js';
import { vaneContextFactoryProvider } from './vane-context.provider.js';
import { VaneLifecycle } from './vane-lifecycle.service.js';
import { VaneObservables } from './vane.observables.js';
import { VaneRequestFlags } from './vane-request-flags.service.js';
import { VaneRequestPins } from './vane-request-pins.service.js';
import { vanePinInterceptorOf } from './vane-pin.interceptor.js';
import { VaneGatewayPins } from './vane-gateway-pins.js';
import { VaneStartupCheck } from './vane-startup-check.service.js';
import { vaneExceptionFilterOf } from './vane-exception.filter.js';
import type { VaneModuleOptions } from './interfaces/vane-module-options.interface.js';

/** Providers every Vane module has beside the client (the real one and the testing one). @internal */
export const VANE_SHARED_PROVIDERS: Provider[] = [
  vaneContextFactoryProvider,
  VaneObservables,
  VaneRequestPins,
  VaneRequestFlags,
  // Every handler runs in its call's pinned scope (one revision per request).
  {
    provide: APP_INTERCEPTOR,
    inject: [VANE_MODULE_OPTIONS, VaneRequestPins],
    useFactory: (options: VaneModuleOptions, pins: VaneRequestPins) =>
      vanePinInterceptorOf(options.useGlobalInterceptor, pins),
  },
  // …and around WebSocket gateways' handlers, which Nest's app-wide interceptors skip.
  VaneGatewayPins,
  // The client's typed errors answered as @vane/express and @vane/fastify answer them.
  {
    provide: APP_FILTER,
    inject: [VANE_MODULE_OPTIONS, VANE_LOGGER, HttpAdapterHost],
    useFactory: (options: VaneModuleOptions, logger: VaneLogger, adapterHost: HttpAdapterHost) =>
      vaneExceptionFilterOf(options.exceptionFilter, logger, adapterHost),
  },
  FeatureFlagGuard,
  SecretPipe,
  FlagPipe,
  VaneStartupCheck,
  ConfigServiceMirror,
  VaneHealthIndicator,
  VaneLifecycle,
];

/** What a Vane module exports: enough for the guard and pipes to be built in any module that imports it. @internal */
export const VANE_EXPORTS = [
  VaneClient,
  VANE_MODULE_OPTIONS,
  VANE_CONTEXT_FACTORY,
  VANE_LOGGER,
  VaneObservables,
  VaneRequestPins,
  VaneRequestFlags,
  FeatureFlagGuard,
  SecretPipe,
  FlagPipe,
  VaneHealthIndicator,
];
