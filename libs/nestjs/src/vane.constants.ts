/**
 * Injection tokens and metadata keys of `@vane/nestjs`, namespaced `VANE:`.
 *
 * The client itself needs no token: inject `VaneClient` by class.
 *
 * @packageDocumentation
 */

/** Token of the resolved {@link VaneModuleOptions} (what `forRoot`/`forRootAsync` produced). */
export const VANE_MODULE_OPTIONS = 'VANE:MODULE_OPTIONS';

/** Token of the {@link VaneContextFactory} that reads the A/B user context from a request. */
export const VANE_CONTEXT_FACTORY = 'VANE:CONTEXT_FACTORY';

/** Token of the `VaneLogger` the module gives to the client (a Nest `Logger` by default). */
export const VANE_LOGGER = 'VANE:LOGGER';

/** Metadata key under which `@Secret()` and `@Flag()` record their parameters on a method. @internal */
export const VANE_PARAMS_METADATA = 'VANE:PARAMS';

/** Token of the provider that mirrors configs into `@nestjs/config`'s `ConfigService`. @internal */
export const VANE_CONFIG_SERVICE_MIRROR = 'VANE:CONFIG_SERVICE_MIRROR';
