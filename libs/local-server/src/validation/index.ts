/**
 * Parsers for everything the local server accepts from outside: admin API
 * bodies, secret writes, seed and state files. Each takes the untrusted value
 * and the JSON path it came from, and returns the typed value or throws a
 * {@link ValidationError} that names the path and what was wrong.
 *
 * No message ever repeats a secret value or an API key: where the offending
 * value could be one, only its JSON type is described.
 */
export { ValidationError, fail } from './validation-error.js';
export { describeType, quote } from './json-type.js';
export {
  parseBoolean,
  parseInteger,
  parseJsonValue,
  parseObject,
  parsePercentage,
  parseString,
  parseStringArray,
  rejectUnknownMembers,
} from './primitives.js';
export {
  isValidKey,
  isValidSlug,
  keyTypeOf,
  parseApiKey,
  parseKey,
  parseServiceKind,
  parseSlug,
} from './identifiers.js';
export { formatTimestamp, parseTimestamp } from './timestamp.js';
export { parseConfigValue } from './config-value.js';
export { AB_OPERATORS, parseAbRule, parseFlagDefinition } from './flag-definition.js';
export { SECRET_TYPES, parseSecretType, parseSecretWrite } from './secret-input.js';
export { TENANT_MEMBERS, parseTenantPatch } from './tenant-patch.js';
