import { Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { VaneClient } from '@vane/client';
import { vaneLoggerProvider } from '../vane-client.provider.js';
import { VANE_LOGGER, VANE_MODULE_OPTIONS } from '../vane.constants.js';
import { VANE_EXPORTS, VANE_SHARED_PROVIDERS } from '../vane.providers.js';
import {
  testingApiKey,
  testingClientFactory,
  testingModuleOptions,
  VaneTestingBackend,
  type VaneTestingSettings,
  type VaneTestingValues,
} from './vane-testing.backend.js';

/** Options of {@link VaneTestingModule.forRoot}: fixed values, plus the module options that shape behaviour. */
export interface VaneTestingModuleOptions extends VaneTestingValues, VaneTestingSettings {
  /** Register globally, as `VaneModule.forRoot({ isGlobal: true })` does; the default is `VaneModule`'s. @default false */
  isGlobal?: boolean;
}

/**
 * `VaneModule` with fixed values and no network, for tests that build
 * their module from parts. The real `VaneClient` runs against an in-memory
 * {@link VaneTestingBackend} (inject it to change values while the test
 * runs). Everything else is the real module: the guard, `@Secret()`,
 * `@Flag()`, observables, startup check. To test an unchanged `AppModule`,
 * see {@link VaneTestingBackend.override}.
 *
 * @example
 * ```ts
 * const moduleRef = await Test.createTestingModule({
 *   imports: [VaneTestingModule.forRoot({ flags: { 'new-checkout': true }, secrets: { 'stripe.api_key': 'sk_test' } }), CheckoutModule],
 * }).compile();
 * await moduleRef.get(VaneTestingBackend).setFlag('new-checkout', false);
 * ```
 */
@Module({})
export class VaneTestingModule {
  /** A module serving `options`' values. */
  static forRoot(options: VaneTestingModuleOptions = {}): DynamicModule {
    const backend = new VaneTestingBackend(options);
    const moduleOptions = testingModuleOptions(testingApiKey(options.publicKey), options);
    return {
      module: VaneTestingModule,
      global: options.isGlobal ?? false,
      imports: [DiscoveryModule],
      providers: [
        { provide: VANE_MODULE_OPTIONS, useValue: moduleOptions },
        { provide: VaneTestingBackend, useValue: backend },
        vaneLoggerProvider,
        {
          provide: VaneClient,
          useFactory: testingClientFactory(backend, moduleOptions, options.secretsDir),
          inject: [VANE_LOGGER],
        },
        ...VANE_SHARED_PROVIDERS,
      ],
      exports: [...VANE_EXPORTS, VaneTestingBackend],
    };
  }
}
