/**
 * `@vane/client`: configs, secrets and feature flags from the Vane delivery
 * service, cached in memory and kept current by a live stream.
 *
 * This entry holds what an app author writes. Every error class is on
 * `@vane/client/errors` (match on {@link VaneError.code}); what a framework
 * adapter is built from is on `@vane/client/adapter`.
 *
 * @packageDocumentation
 * @module @vane/client
 */
export { VaneClient } from './vane-client.js';
export { createBrowserBootstrap } from './browser-bootstrap.js';
export type { BrowserBootstrapOptions } from './browser-bootstrap.js';
export type { VaneClientOptions } from './options.js';
export type { ConfigLookup, FlagState, VaneReader } from './vane-reader.js';
export type { VaneView } from './vane-view.js';
export type { SyncResult } from './data-sources/snapshot-sync.js';
export type { SecretWriteResult, SetSecretOptions } from './secrets/secret-writes.js';
export type { SyncMode, VaneClientStatus, StatusListener } from './data-sources/client-status.js';
export type { StaleStartReason, StaleState } from './last-known-good/index.js';
export type { ChangeEvent, ChangeListener } from './store/change-event.js';
export type { StateUpdate, UpdateListener } from './store/state-update.js';
export type { ConfigValue, JsonValue, SecretType, VaneBootstrap } from '@vane/client-core';

export { defineSchema } from './schema/vane-schema.js';
export type {
  VaneSchema,
  VaneRegister,
  ConfigKey,
  ConfigOutput,
  FlagKey,
  SecretKey,
  DeclaredConfig,
} from './schema/vane-schema.js';
export type { InvalidConfig, InvalidConfigListener } from './schema/invalid-config.js';

export type { AbContext, AbResults } from '@vane/client-core';
export type { AbCacheOptions } from './ab/ab-cache-options.js';

export { FileBackupStore, RedisBackupStore } from './last-known-good/index.js';
export type {
  LastKnownGoodStore,
  LastKnownGoodOptions,
  FileBackupStoreOptions,
  RedisBackupStoreOptions,
  RedisCommands,
} from './last-known-good/index.js';
export { sweepStaleSecretDirs } from './secrets/stale-secret-dirs.js';

export { LiveResource, tlsCertificate, keepSecureContextCurrent } from './live-resource/index.js';
export type {
  LiveResourceDefinition,
  LiveResourceValues,
  LiveResourceStatus,
  LiveResourceEvent,
  LiveResourceListener,
  TlsCertificate,
  TlsCertificateOptions,
} from './live-resource/index.js';

export { ApiKeyCredentials } from './http/credentials.js';
export type { Credentials } from './http/credentials.js';
export { WorkloadIdentityCredentials } from './workload-identity/workload-identity-credentials.js';
export type {
  WorkloadIdentityOptions,
  WorkloadIdentityProvider,
} from './workload-identity/workload-identity-options.js';

export { checkConnectivity } from './data-sources/connectivity.js';
export type { ConnectivityOptions, ConnectivityResult } from './data-sources/connectivity.js';
export type {
  VaneTelemetry,
  VaneTelemetryOptions,
  FlagEvaluation,
  FlagEvaluationReason,
  FlagDecisionSource,
} from './telemetry/index.js';
export type { VaneLogger } from './util/logger.js';
export type { Transport } from './http/transport.js';
export type { Clock } from './util/timers.js';
export { VaneError } from './errors.js';
export type { VaneErrorCode } from './errors.js';
export type { VaneSnapshot, SnapshotUpdate } from './deprecated-names.js';
