export { VaneTestingModule, type VaneTestingModuleOptions } from './vane-testing.module.js';
export {
  VaneTestingBackend,
  type VaneTestingValues,
  type VaneTestingClientOptions,
  type VaneTestingSecret,
  type VaneTestingAbRule,
  type VaneTestingAbCall,
} from './vane-testing.backend.js';
