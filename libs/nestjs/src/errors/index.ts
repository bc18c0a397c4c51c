export { VaneNestError, type VaneNestErrorCode } from './vane-nest.error.js';
export { SecretUnavailableException, type SecretUnavailableReason } from './secret-unavailable.exception.js';
export { VaneStartupCheckError, type VaneStartupFinding } from './vane-startup-check.error.js';
export { OptionalPeerMissingError } from './optional-peer-missing.error.js';
export { ConfigServiceMissingError } from './config-service-missing.error.js';
export { FeatureFlagGraphQLError } from './feature-flag-graphql.error.js';
