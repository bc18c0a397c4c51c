/**
 * `@vane/common`: pure helpers and the type names shared by Vane's packages
 * (`ConfigValue`, `JsonValue`, `SecretType`, `Clock`, `SecretWriteResult`), so each rule and each name has one
 * home, and the admin API's catalog (`ADMIN_OPERATION_CATALOG`), generated from the server's operations table for
 * what calls the admin API without installing the server (the `vane` CLI). Protocol decisions (key patterns, key types, what a snapshot may
 * hold) are not here: the local server implements the wire independently of
 * the client, which is how a rule both sides get wrong is caught.
 *
 * @packageDocumentation
 * @module @vane/common
 */
export { jsonEqual } from './json-equal.js';
export { exceedsJsonDepth } from './json-depth.js';
export { redactKey } from './redact-key.js';
export { isModuleNotFound, type ModuleImporter } from './module-not-found.js';
export type { ConfigValue, JsonValue, SecretType } from './values.js';
export type { Clock } from './clock.js';
export type { SecretWriteResult } from './secret-write-result.js';
export { ADMIN_OPERATION_CATALOG, type AdminOperationId } from './admin-operation-catalog.js';
export {
  ADMIN_API_PREFIX,
  AdminPathMemberError,
  adminOperationPath,
  type AdminPathParams,
  type PathMemberNames,
} from './admin-path.js';
