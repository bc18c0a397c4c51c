/**
 * `@vane/client/adapter`: what a framework adapter (`@vane/nestjs`,
 * `@vane/express`, `@vane/fastify`, `@vane/openfeature`) is built from —
 * request readers, per-request A/B memos, error answers, startup checks,
 * response-end hooks, key patterns — and the names an app rarely writes:
 * option defaults, the members of the event unions, the narrower schema
 * types. An app reads `@vane/client`; this entry is for writing an adapter.
 *
 * @packageDocumentation
 * @module @vane/client/adapter
 */
export { callView, pinStatsOf, type PinStats } from './call-view.js';
export { callSnapshot, type SnapshotReader, type SnapshotOrigin } from './deprecated-names.js';
export { AdapterRequestReader } from './request-reader.js';
export type { RequestVane } from './request-vane.js';
export { RequestAbEvaluation } from '../ab/request-ab-evaluation.js';
export type { RequestAbEvaluationOptions, RequestAbMemo } from '../ab/request-ab-evaluation.js';
export { VANE_ERROR_ANSWERS, answerVaneError, hasVaneErrorCode } from './error-answers.js';
export type { VaneErrorAnswer, VaneErrorBody, VaneErrorReply } from './error-answers.js';
export { initialSyncHint, initialSyncFailureLine } from './initial-sync-hint.js';
export { flagDenialOf, type FlagDenial } from './flag-denial.js';
export { checkFlagKeys } from './flag-keys.js';
export { checkFlagOffOptions } from './flag-off-options.js';
export { whenResponseEnds, type EndingResponse, type ResponseEndCallback } from './response-end.js';
export { runStartupCheck, unknownFlagWarnings, type FlagKeyUse } from './unknown-flag-keys.js';
export { isVaneKey, VANE_KEY_PATTERN } from '../util/vane-key.js';
export { keyTypeOf, type KeyType } from '@vane/client-core';
export { MAX_AB_KEYS_PER_CALL, abContextKey } from '@vane/client-core';
export { AB_CACHE_DEFAULTS } from '../ab/ab-cache-options.js';
export type { AbCacheStats } from '../ab/ab-evaluator.js';
export { SYNC_MODES } from '../data-sources/client-status.js';
export type { StateReader, SecretReadRefusal } from '../state-reader.js';
export type { CredentialsContext } from '../http/credentials.js';
export type { TransportRequest, TransportResponse } from '../http/transport.js';
export type { Timers, TimerHandle } from '../util/timers.js';
export type { WidenConfig } from '../vane-reader.js';
export type {
  ConfigValidator,
  ListedConfigKey,
  RegisteredConfigKey,
  RegisteredSchema,
  SecretKey,
  UnlistedConfigKey,
} from '../schema/vane-schema.js';
export { DEFAULTS } from '../options.js';
export { consoleLogger } from '../util/logger.js';
export { LIVE_RESOURCE_DEFAULTS } from '../live-resource/index.js';
export type {
  LiveResourceConfigValue,
  LiveResourceState,
  LiveResourceRebuiltEvent,
  LiveResourceRebuildFailedEvent,
  LiveResourceDisposedEvent,
  TlsPemSource,
} from '../live-resource/index.js';
export type {
  ConfigChangeEvent,
  FlagChangeEvent,
  SecretChangeEvent,
  SecretVersionInfo,
} from '../store/change-event.js';
export type { UpdateOrigin } from '../store/state-update.js';
export { WORKLOAD_IDENTITY_DEFAULTS } from '../workload-identity/workload-identity-options.js';
export type { AwsCredentials, AwsCredentialsProvider } from '../workload-identity/workload-identity-options.js';
