/**
 * `@vane/common`: pure helpers and the type names shared by Vane's packages
 * (`ConfigValue`, `JsonValue`, `SecretType`, `Clock`, `SecretWriteResult`), so each rule and each name has one
 * home. Protocol decisions (key patterns, key types, what a snapshot may
 * hold) are not here: the local server implements the wire independently of
 * the client, which is how a rule both sides get wrong is caught.
 *
 * @packageDocumentation
 * @module @vane/common
 */
export { jsonEqual } from './json-equal.js';
export { exceedsJsonDepth } from './json-depth.js';
export { redactKey } from './redact-key.js';
export type { ConfigValue, JsonValue, SecretType } from './values.js';
export type { Clock } from './clock.js';
export type { SecretWriteResult } from './secret-write-result.js';
