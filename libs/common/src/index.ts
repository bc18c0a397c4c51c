/**
 * `@vane/common`: pure helpers shared by Vane's packages, so each rule has
 * one home. Protocol decisions (key patterns, key types, what a snapshot may
 * hold) are not here: the local server implements the wire independently of
 * the client, which is how a rule both sides get wrong is caught.
 *
 * @packageDocumentation
 */
export { jsonEqual } from './json-equal.js';
export { exceedsJsonDepth } from './json-depth.js';
export { redactKey } from './redact-key.js';
