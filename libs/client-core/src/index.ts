/**
 * `@vane/client-core`: the protocol rules of a Vane client with no runtime
 * in them (no timer, no I/O, no Node built-ins), so that `@vane/client`
 * (Node) and `@vane/browser` (anything with `fetch`) follow each rule from
 * one home: the snapshot and its patches (PROTOCOL §5–6), the stream's
 * events, reconnect backoff and the polling fallback, error answers and
 * codes, A/B requests (§7), API keys, and the bootstrap format.
 *
 * @packageDocumentation
 * @module @vane/client-core
 */
export type { ConfigValue, JsonValue, SecretType } from '@vane/common';
export {
  ClientClosedError,
  FrontendSecretReadError,
  InvalidArgumentError,
  PublicKeySecretAccessError,
  SecretKeyInBrowserError,
  VaneError,
} from './errors.js';
export type { VaneErrorCode, VaneErrorOptions } from './errors.js';
export { assertValidApiKey, keyTypeOf } from './api-key.js';
export type { KeyType } from './api-key.js';
export {
  applyPatch,
  decidePatch,
  EMPTY_SNAPSHOT,
  MAX_VALUE_DEPTH,
  parsePatch,
  parsePublicPatch,
  parsePublicSnapshot,
  parseSnapshot,
  SnapshotFormatError,
} from './snapshot.js';
export type { CachedSecret, FlagRecord, Patch, PatchDecision, ServiceInfo, Snapshot } from './snapshot.js';
export { Backoff, backoffDelayMs, parseRetryAfterMs } from './backoff.js';
export type { BackoffOptions, BackoffSettings, BackoffStep } from './backoff.js';
export { changedKeys, diffMaps } from './map-diff.js';
export { createSseParser } from './sse-parser.js';
export type { SseEvent } from './sse-parser.js';
export {
  GOAWAY_DEFAULT_DELAY_MS,
  GOAWAY_MAX_DELAY_MS,
  goawayDelayMs,
  readStreamEvent,
  resyncNeeded,
} from './stream-events.js';
export type { StreamInstruction } from './stream-events.js';
export { decideStreamFailure, fallbackPollDelayMs, serviceWaitMs } from './stream-policy.js';
export type { StreamFailureDecision, StreamPolicySettings } from './stream-policy.js';
export { errorCodeFor, PROTOCOL_HEADER, readErrorBody, secretWriteErrorCodeFor } from './error-answer.js';
export type { ErrorBody } from './error-answer.js';
export {
  abContextKey,
  checkAbKeys,
  countAbAttributes,
  MAX_AB_KEYS_PER_CALL,
  normalizeAbContext,
  planAbEvaluation,
  readAbResults,
} from './ab-context.js';
export type { AbContext, AbPlan, AbResults } from './ab-context.js';
export { publicSnapshotJson, readBootstrap, readBootstrapAb, readBootstrapState } from './bootstrap.js';
export type {
  BootstrapAb,
  FlagJson,
  PublicSnapshotJson,
  ReadBootstrap,
  ReadBootstrapState,
  VaneBootstrap,
} from './bootstrap.js';
