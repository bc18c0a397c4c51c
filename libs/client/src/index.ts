/**
 * `@vane/client`: configs, secrets and feature flags from the Vane delivery
 * service, cached in memory and kept current by a live stream.
 *
 * @packageDocumentation
 */
export { VaneClient } from './vane-client.js';
export type { ConfigLookup, FlagState, WidenConfig, VaneReader } from './vane-reader.js';
export type { VaneSnapshot } from './vane-snapshot.js';
export type { SnapshotReader, SecretReadRefusal } from './snapshot-reader.js';
export { RequestAbEvaluation } from './ab/request-ab-evaluation.js';
export type { RequestAbEvaluationOptions, RequestAbMemo } from './ab/request-ab-evaluation.js';
export type { SyncResult } from './data-sources/snapshot-sync.js';
export type { SecretWriteResult, SetSecretOptions } from './secrets/secret-writes.js';
export type { SyncMode, VaneClientStatus, StatusListener } from './data-sources/client-status.js';
export { SYNC_MODES } from './data-sources/client-status.js';
export type {
  VaneTelemetry,
  VaneTelemetryOptions,
  FlagEvaluation,
  FlagEvaluationReason,
  FlagDecisionSource,
} from './telemetry/index.js';
export type { VaneClientOptions } from './options.js';
export { defineSchema } from './schema/vane-schema.js';
export type {
  VaneSchema,
  VaneRegister,
  RegisteredSchema,
  ConfigValidator,
  ConfigKey,
  ListedConfigKey,
  RegisteredConfigKey,
  UnlistedConfigKey,
  ConfigOutput,
  FlagKey,
  SecretKey,
  DeclaredConfig,
} from './schema/vane-schema.js';
export type { InvalidConfig, InvalidConfigListener } from './schema/invalid-config.js';
export { DEFAULTS } from './options.js';
export { checkConnectivity } from './data-sources/connectivity.js';
export { FileBackupStore, RedisBackupStore } from './last-known-good/index.js';
export {
  LiveResource,
  LIVE_RESOURCE_DEFAULTS,
  tlsCertificate,
  keepSecureContextCurrent,
} from './live-resource/index.js';
export type {
  LiveResourceDefinition,
  LiveResourceValues,
  LiveResourceConfigValue,
  LiveResourceState,
  LiveResourceStatus,
  LiveResourceEvent,
  LiveResourceRebuiltEvent,
  LiveResourceRebuildFailedEvent,
  LiveResourceDisposedEvent,
  LiveResourceListener,
  TlsCertificate,
  TlsCertificateOptions,
  TlsPemSource,
} from './live-resource/index.js';
export type {
  LastKnownGoodStore,
  LastKnownGoodOptions,
  FileBackupStoreOptions,
  RedisBackupStoreOptions,
  RedisCommands,
  StaleStartReason,
  StaleState,
} from './last-known-good/index.js';
export { sweepStaleSecretDirs } from './secrets/stale-secret-dirs.js';
export type { ConnectivityOptions, ConnectivityResult } from './data-sources/connectivity.js';
export type {
  ChangeEvent,
  ChangeListener,
  ConfigChangeEvent,
  FlagChangeEvent,
  SecretChangeEvent,
  SecretVersionInfo,
} from './store/change-event.js';
export type { SnapshotUpdate, UpdateListener, SnapshotOrigin } from './store/snapshot-update.js';
export type { AbContext, AbResults } from './ab/ab-evaluation.js';
export { MAX_AB_KEYS_PER_CALL, abContextKey } from './ab/ab-evaluation.js';
export type { AbCacheOptions } from './ab/ab-cache-options.js';
export { AB_CACHE_DEFAULTS } from './ab/ab-cache-options.js';
export type { AbCacheStats } from './ab/ab-evaluator.js';
export type { ConfigValue, JsonValue, SecretType } from './store/snapshot.js';
export type { KeyType } from './http/api-key.js';
export { keyTypeOf } from './http/api-key.js';
export { ApiKeyCredentials } from './http/credentials.js';
export type { Credentials, CredentialsContext } from './http/credentials.js';
export { WorkloadIdentityCredentials } from './workload-identity/workload-identity-credentials.js';
export { WORKLOAD_IDENTITY_DEFAULTS } from './workload-identity/workload-identity-options.js';
export type {
  WorkloadIdentityOptions,
  WorkloadIdentityProvider,
  AwsCredentials,
  AwsCredentialsProvider,
} from './workload-identity/workload-identity-options.js';
export { redactKey } from './util/redact.js';
export { VANE_ERROR_ANSWERS, answerVaneError, hasVaneErrorCode } from './adapter/error-answers.js';
export type { VaneErrorAnswer, VaneErrorBody, VaneErrorReply } from './adapter/error-answers.js';
export { initialSyncHint, initialSyncFailureLine } from './adapter/initial-sync-hint.js';
export type { VaneLogger } from './util/logger.js';
export { consoleLogger } from './util/logger.js';
export type { Clock, Timers, TimerHandle } from './util/timers.js';
export type { Transport, TransportRequest, TransportResponse } from './http/transport.js';
export {
  VaneError,
  VaneHttpError,
  UnauthorizedError,
  BillingOverdueError,
  NotFoundError,
  RateLimitedError,
  QuarantinedError,
  AddonNotAvailableError,
  UnexpectedResponseError,
  NotAVaneServiceError,
  PublicKeySecretAccessError,
  FrontendSecretReadError,
  SecretNotFoundError,
  WorkloadIdentityNotConfiguredError,
  TokenExchangeFailedError,
  SessionExpiredError,
  TransportError,
  InvalidArgumentError,
  ClientClosedError,
  SecretFileWriteError,
  ConfigInvalidError,
  SecretsNotAvailableError,
  LiveResourceBuildError,
  LiveResourceClosedError,
} from './errors.js';
export type {
  VaneErrorCode,
  VaneErrorOptions,
  HttpErrorOptions,
  StatusErrorOptions,
  RateLimitedErrorOptions,
  QuarantinedErrorOptions,
  LiveResourceBuildStage,
  LiveResourceBuildErrorOptions,
} from './errors.js';
export type { FlagDenial } from './adapter/flag-denial.js';
export { flagDenialOf } from './adapter/flag-denial.js';
export { checkFlagKeys } from './adapter/flag-keys.js';
export { checkFlagOffOptions } from './adapter/flag-off-options.js';
export { AdapterRequestReader } from './adapter/request-reader.js';
export { whenResponseEnds } from './adapter/response-end.js';
export type { EndingResponse, ResponseEndCallback } from './adapter/response-end.js';
export { runStartupCheck, unknownFlagWarnings } from './adapter/unknown-flag-keys.js';
export type { FlagKeyUse } from './adapter/unknown-flag-keys.js';
export { isVaneKey, VANE_KEY_PATTERN } from './util/vane-key.js';
