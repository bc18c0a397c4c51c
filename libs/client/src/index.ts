/**
 * `@vane/client`: configs, secrets and feature flags from the Vane delivery
 * service, cached in memory and kept current by a live stream.
 *
 * @packageDocumentation
 */
export { VaneClient } from './vane-client.js';
export type { ConfigLookup, FlagState, WidenConfig, VaneReader } from './vane-reader.js';
export { RequestAbEvaluation } from './request-ab-evaluation.js';
export type { RequestAbEvaluationOptions } from './request-ab-evaluation.js';
export type { SyncResult } from './snapshot-sync.js';
export type { SecretWriteResult, SetSecretOptions } from './secret-writes.js';
export type { SyncMode, VaneClientStatus, StatusListener } from './client-status.js';
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
} from './schema/vane-schema.js';
export type { InvalidConfig, InvalidConfigListener } from './schema/invalid-config.js';
export { DEFAULTS } from './options.js';
export { checkConnectivity } from './connectivity.js';
export { FileBackupStore, RedisBackupStore } from './last-known-good/index.js';
export type {
  LastKnownGoodStore,
  LastKnownGoodOptions,
  FileBackupStoreOptions,
  RedisBackupStoreOptions,
  RedisCommands,
  StaleStartReason,
  StaleState,
} from './last-known-good/index.js';
export { sweepStaleSecretDirs } from './stale-secret-dirs.js';
export type { ConnectivityOptions, ConnectivityResult } from './connectivity.js';
export type {
  ChangeEvent,
  ChangeListener,
  ConfigChangeEvent,
  FlagChangeEvent,
  SecretChangeEvent,
  SecretVersionInfo,
} from './change-event.js';
export type { AbContext, AbResults } from './ab-evaluation.js';
export { MAX_AB_KEYS_PER_CALL } from './ab-evaluation.js';
export type { ConfigValue, JsonValue, SecretType } from './snapshot.js';
export type { KeyType } from './api-key.js';
export { keyTypeOf } from './api-key.js';
export { ApiKeyCredentials } from './credentials.js';
export type { Credentials, CredentialsContext } from './credentials.js';
export { WorkloadIdentityCredentials } from './workload-identity/workload-identity-credentials.js';
export { WORKLOAD_IDENTITY_DEFAULTS } from './workload-identity/workload-identity-options.js';
export type {
  WorkloadIdentityOptions,
  WorkloadIdentityProvider,
  AwsCredentials,
  AwsCredentialsProvider,
} from './workload-identity/workload-identity-options.js';
export { redactKey } from './redact.js';
export type { VaneLogger } from './logger.js';
export type { Clock, Timers, TimerHandle } from './timers.js';
export type { Transport, TransportRequest, TransportResponse } from './transport.js';
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
} from './errors.js';
export type {
  VaneErrorCode,
  VaneErrorOptions,
  HttpErrorOptions,
  StatusErrorOptions,
  RateLimitedErrorOptions,
  QuarantinedErrorOptions,
} from './errors.js';
