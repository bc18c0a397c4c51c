/**
 * `@vane/server`: a complete Vane delivery service on loopback, for
 * tests, laptops and demos. Start it in process with {@link startVaneServer}
 * or from the command line with `vane-local-server --seed vane.seed.json`.
 *
 * @module @vane/server
 */
export {
  startVaneServer,
  type VaneServer,
  type VaneServerAdmin,
  type VaneServerFlagInput,
  type VaneServerFlagPatch,
  type VaneServerMetrics,
  type VaneServerOptions,
  type VaneServerReadiness,
  type VaneServerSeed,
  type VaneServiceSummary,
  type VaneServerTrustInput,
  DEFAULT_SESSION_TTL_MS,
} from './server/start-vane-server.js';
export {
  DEFAULT_FAILED_ATTEMPT_THROTTLE,
  type FailedAttemptThrottleOptions,
} from './domain/failed-attempt-throttle.js';
export { ManualClock, systemClock, type CancellableTimer, type TimerClock } from './domain/clock.js';
export { consoleLogger, silentLogger, type LogFields, type VaneServerLogger } from './observability/logger.js';
export { VaneServerError, type VaneServerErrorCode, type VaneServerErrorOptions } from './errors/vane-server-error.js';
export {
  startLocalServer,
  LocalServerError,
  type LocalServer,
  type LocalServerAdmin,
  type LocalServerErrorCode,
  type LocalServerErrorOptions,
  type LocalServerFlagInput,
  type LocalServerFlagPatch,
  type LocalServerLogger,
  type LocalServerOptions,
  type LocalServerSeed,
  type LocalServerTrustInput,
  type LocalServiceSummary,
} from './server/deprecated-names.js';
export { SeedError } from './seed/seed-error.js';
export { ValidationError } from './validation/validation-error.js';
export { NotFoundError } from './errors/not-found-error.js';
export { JournalFileError } from './persistence/journal-file.js';
export { JournalWriteError } from './persistence/state-journal.js';
export { StateChangeError } from './domain/state-change.js';
export { ConfigError } from './errors/config-error.js';
export {
  CommitOutcomeUnknownError,
  StoreOpenError,
  StoreUnavailableError,
  StoreUnreachableError,
} from './errors/store-errors.js';
export { RootKeyMissingError } from './sealing/root-key-missing-error.js';
export { OutboundRefusedError } from './errors/outbound-refused-error.js';
export { RootKeyError } from './sealing/root-key-error.js';
export { SealedDataError } from './sealing/sealed-data-error.js';
export { ForbiddenError } from './auth/forbidden-error.js';
export { ConflictError } from './errors/conflict-error.js';
export { abBucket, evaluateAbFlag } from './domain/ab-evaluation.js';
export type { StreamStats } from './domain/stream-hub.js';
export type { RebalanceOptions } from './fleet/rebalancer.js';
export type { FleetView, LocalReplica, ReplicaInfo } from './fleet/fleet-view.js';
export type { ReadinessCheck, ReadinessReport, ReadinessResult } from './observability/readiness.js';
export type { SecretWriteOutcome } from './domain/store.js';
export type {
  AbCohort,
  AbCondition,
  AbOperator,
  AbRule,
  AdminRight,
  AuditAction,
  AuditEntry,
  AuditRecord,
  ChangeAction,
  ConfigValue,
  FlagDefinition,
  JsonValue,
  SecretType,
  TenantState,
} from './domain/model.js';
