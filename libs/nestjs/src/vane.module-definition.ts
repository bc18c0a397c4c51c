import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { VaneModuleOptions } from './interfaces/vane-module-options.interface.js';
import { VANE_MODULE_OPTIONS } from './vane.constants.js';

/** Extras of `forRoot`/`forRootAsync` that shape the module rather than the client. */
export interface VaneModuleExtras {
  /**
   * Register the module globally: its providers (the client, the guard's
   * dependencies, the pipes' dependencies) are visible in every module.
   * @default false
   */
  isGlobal?: boolean;
}

/**
 * The module's `forRoot`/`forRootAsync` (with `useFactory`, `useClass`,
 * `useExisting`, `inject`, `imports`), built by Nest's
 * `ConfigurableModuleBuilder`. A `useClass`/`useExisting` class implements
 * {@link VaneOptionsFactory}.
 */
export const {
  ConfigurableModuleClass: VaneConfigurableModuleClass,
  OPTIONS_TYPE: VANE_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: VANE_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<VaneModuleOptions>({ optionsInjectionToken: VANE_MODULE_OPTIONS, moduleName: 'Vane' })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createVaneOptions')
  .setExtras<VaneModuleExtras>({ isGlobal: false }, (definition, extras) => ({
    ...definition,
    global: extras.isGlobal ?? false,
  }))
  .build();

/** What `forRoot()` takes: the module options plus `isGlobal`. */
export type VaneModuleForRootOptions = typeof VANE_OPTIONS_TYPE;
/** What `forRootAsync()` takes: `imports`, `inject`, `useFactory` | `useClass` | `useExisting`, plus `isGlobal`. */
export type VaneModuleAsyncOptions = typeof VANE_ASYNC_OPTIONS_TYPE;

/** What a `useClass`/`useExisting` options provider implements. */
export interface VaneOptionsFactory {
  /** Returns the module options. */
  createVaneOptions(): VaneModuleOptions | Promise<VaneModuleOptions>;
}
