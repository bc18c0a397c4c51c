/**
 * `@vane/nestjs`: configs, secrets and feature flags from Vane in a NestJS
 * app, live. Import `VaneModule.forRoot()` (or `forRootAsync()`), inject
 * `VaneClient` by class, gate routes with `@FeatureFlag()`, inject secrets
 * with `@Secret()`, watch values with `VaneObservables`. The testing module
 * and backend are on their own entry, `@vane/nestjs/testing`, so that an app's
 * production bundle does not carry them. Providers the module registers
 * itself (request pins, pipes, lifecycle, startup check) are not exported:
 * the decorators reach them.
 *
 * @packageDocumentation
 * @module @vane/nestjs
 */
export { VaneModule } from './vane.module.js';
export type {
  VaneModuleExtras,
  VaneModuleForRootOptions,
  VaneModuleAsyncOptions,
  VaneOptionsFactory,
} from './vane.module-definition.js';
export type { VaneModuleOptions, VaneStartupCheckMode } from './interfaces/vane-module-options.interface.js';
export type { VaneContextFactory } from './interfaces/vane-context-factory.interface.js';
export type {
  FeatureFlagOptions,
  FeatureFlagMetadata,
  FeatureFlagDenial,
  FeatureFlagException,
} from './interfaces/feature-flag-options.interface.js';
export type { SecretOptions } from './interfaces/secret-options.interface.js';
export type { FlagOptions } from './interfaces/flag-options.interface.js';
export { VANE_MODULE_OPTIONS, VANE_CONTEXT_FACTORY, VANE_LOGGER } from './vane.constants.js';
export { VaneObservables } from './vane.observables.js';
export {
  VaneRequestFlags,
  type FeatureFlagRequirementReader,
  type RequestFlagState,
} from './vane-request-flags.service.js';
export { VanePinInterceptor } from './vane-pin.interceptor.js';
export { VaneExceptionFilter, VaneGraphQLError, type VaneExceptionFilterOptions } from './vane-exception.filter.js';
export { FeatureFlag } from './feature-flag.decorator.js';
export { FeatureFlagRequirement } from './feature-flag.metadata.js';
export { FeatureFlagGuard } from './feature-flag.guard.js';
export { Secret } from './secret.decorator.js';
export { Flag } from './flag.decorator.js';
export { defaultVaneContextFactory } from './vane-context.provider.js';
export { requestOf, userOf, transportOf, type VaneTransport } from './request-context.js';
export {
  VaneHealthIndicator,
  type VaneHealthDetails,
  type VaneHealthStaleDetails,
  type VaneHealthIndicatorResult,
} from './health/vane.health-indicator.js';
export {
  provideLiveResource,
  type LiveResourceProviderOptions,
  type LiveResourceFactoryProviderOptions,
} from './live-resource.provider.js';
export * from './errors/index.js';
/** Re-exported so an app can inject the client by class without importing `@vane/client` itself (same class, same token). */
export { VaneClient } from '@vane/client';
/** Re-exported for live resources: the handle's type, and the TLS certificate helpers for `httpsOptions` apps. */
export { tlsCertificate, keepSecureContextCurrent } from '@vane/client';
export type {
  LiveResource,
  LiveResourceDefinition,
  LiveResourceEvent,
  LiveResourceStatus,
  TlsCertificate,
  TlsCertificateOptions,
} from '@vane/client';
