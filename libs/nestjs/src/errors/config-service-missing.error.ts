import { VaneNestError } from './vane-nest.error.js';

/** `mirrorToConfigService: true`, but no `ConfigService` is registered in the app. */
export class ConfigServiceMissingError extends VaneNestError {
  readonly code = 'VANE_NEST_CONFIG_SERVICE_MISSING' as const;

  constructor() {
    super(
      'mirrorToConfigService is on, but the app has no ConfigService: import ConfigModule.forRoot() (from @nestjs/config) in the app module',
    );
  }
}
