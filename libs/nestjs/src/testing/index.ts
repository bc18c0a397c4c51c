/**
 * `@vane/nestjs/testing`: fixed values and no network for the tests of a Nest
 * app, with the real client, guard, pipes and observables over an in-memory
 * backend. An entry of its own, kept off `@vane/nestjs`.
 *
 * @packageDocumentation
 * @module @vane/nestjs/testing
 */
export { VaneTestingModule, type VaneTestingModuleOptions } from './vane-testing.module.js';
export {
  VaneTestingBackend,
  type VaneTestingValues,
  type VaneTestingClientOptions,
  type VaneTestingSecret,
  type VaneTestingAbRule,
  type VaneTestingAbCall,
  type VaneTestingSettings,
  type VaneOverridableBuilder,
} from './vane-testing.backend.js';
