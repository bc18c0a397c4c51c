/**
 * Schemas (valibot) and parsers for everything the local server accepts from
 * outside: admin API bodies, secret writes, seed and state files. Each
 * parser runs its schema through {@link checkSchema}: it takes the untrusted
 * value and the JSON path it came from, and returns the typed value or throws
 * a {@link ValidationError} that names the path and what was wrong.
 *
 * No message ever repeats a secret value or an API key: where the offending
 * value could be one, only its JSON type is described.
 */
export { ValidationError, fail } from './validation-error.js';
export { checkSchema } from './schema-check.js';
export { describeType, quote } from './json-type.js';
export {
  booleanSchema,
  integerSchema,
  jsonValueSchema,
  knownMembersOnly,
  membersInOrder,
  membersSchema,
  objectSchema,
  percentageSchema,
  stringArraySchema,
  stringSchema,
  parseBoolean,
  parseInteger,
  parseJsonValue,
  parseObject,
  parsePercentage,
  parseString,
  parseStringArray,
  rejectUnknownMembers,
  type SchemaMembers,
} from './primitives.js';
export {
  API_KEY_PATTERN,
  KEY_PATTERN,
  SERVICE_KIND_PATTERN,
  SLUG_PATTERN,
  apiKeySchema,
  keySchema,
  serviceKindSchema,
  slugSchema,
  isValidKey,
  isValidSlug,
  keyTypeOf,
  parseApiKey,
  parseKey,
  parseServiceKind,
  parseSlug,
} from './identifiers.js';
export { formatTimestamp, parseTimestamp, timestampSchema } from './timestamp.js';
export { configValueSchema, parseConfigValue } from './config-value.js';
export {
  AB_OPERATORS,
  FLAG_MEMBERS,
  abRuleSchema,
  applyFlagPatch,
  flagDefinitionSchema,
  flagPatchSchema,
  parseAbRule,
  parseFlagDefinition,
  parseFlagPatch,
} from './flag-definition.js';
export { keyTypeSchema, parseKeyType } from './key-type.js';
export {
  SECRET_TYPES,
  parseSecretType,
  parseSecretValue,
  parseSecretWrite,
  secretTypeSchema,
  secretValueSchema,
  secretWriteSchema,
} from './secret-input.js';
export { TENANT_MEMBERS, parseTenantPatch, tenantPatchSchema } from './tenant-patch.js';
export {
  TOKEN_NAME_PATTERN,
  parseProjectName,
  parseTokenName,
  parseTokenRequest,
  type TokenRequest,
} from './admin-token-input.js';
