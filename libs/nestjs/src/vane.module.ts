import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { vaneClientProvider, vaneLoggerProvider } from './vane-client.provider.js';
import { VaneConfigurableModuleClass } from './vane.module-definition.js';
import { VANE_EXPORTS, VANE_SHARED_PROVIDERS } from './vane.providers.js';

/**
 * Vane for NestJS: configs, secrets and feature flags, live.
 *
 * - `VaneClient` is a provider (inject it by class); its factory runs the
 *   blocking initial sync, so a wrong key, a wrong slug, an overdue bill or
 *   an unreachable service stops the start with the client's typed error.
 * - `VaneObservables`: `config$`, `configs$`, `flag$`, `connected$`.
 * - `@FeatureFlag()` (a guard), `@Flag()` and `@Secret()` (parameters).
 * - The startup check, the `ConfigService` mirror and `VaneHealthIndicator`.
 * - The client is closed (file secrets removed) when the app shuts down.
 *
 * @example
 * ```ts
 * @Module({
 *   imports: [
 *     ConfigModule.forRoot(),
 *     VaneModule.forRootAsync({
 *       isGlobal: true,
 *       inject: [ConfigService],
 *       useFactory: (config: ConfigService) => ({ baseUrl: config.getOrThrow('VANE_BASE_URL'), apiKey: config.getOrThrow('VANE_API_KEY') }),
 *     }),
 *   ],
 * })
 * export class AppModule {}
 * ```
 */
@Module({
  imports: [DiscoveryModule],
  providers: [vaneLoggerProvider, vaneClientProvider, ...VANE_SHARED_PROVIDERS],
  exports: VANE_EXPORTS,
})
export class VaneModule extends VaneConfigurableModuleClass {
  /** The module with options known at startup: `VaneModule.forRoot({ baseUrl, apiKey, isGlobal })`. */
  declare static forRoot: (typeof VaneConfigurableModuleClass)['forRoot'];
  /** The module with options from other providers (`ConfigService`): `useFactory`, `useClass` or `useExisting`, with `inject` and `imports`. */
  declare static forRootAsync: (typeof VaneConfigurableModuleClass)['forRootAsync'];
}
