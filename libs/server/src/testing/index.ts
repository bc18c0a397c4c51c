/**
 * `@vane/server/testing`: what an app's tests that run against the local
 * server need beside it — bounded waits on a client's events, the admin API
 * over HTTP (`adminClient`, typed from the server's operations table, its
 * answers checked against the OpenAPI document where Ajv is installed), and
 * a small seed. An entry of its own, kept off `@vane/server`;
 * it imports no client and no framework (the waits take any object with
 * `onUpdate`, `onChange` or `onStatusChange`, such as a `VaneClient`).
 *
 * @packageDocumentation
 * @module @vane/server/testing
 */
export {
  DEFAULT_WAIT_MS,
  WaitTimeoutError,
  until,
  waitForChange,
  waitForEvent,
  waitForRevision,
  waitForStatus,
  waitForUpdate,
  withTimeout,
  type ChangeEventSource,
  type DescribedWaitOptions,
  type StatusEventSource,
  type UntilOptions,
  type UpdateEventSource,
  type WaitOptions,
} from './waits.js';
export {
  AdminRequestError,
  adminPut,
  adminRequest,
  type AdminAnswer,
  type AdminEndpoint,
  type AdminRequestOptions,
} from './admin-http.js';
export {
  adminClient,
  type AdminCallArguments,
  type AdminCallOptions,
  type AdminClient,
  type AdminOperationName,
  type AdminPathValues,
} from './admin-client.js';
export type { AdminApiSchemas, AdminOperationTypes } from './admin-operation-types.js';
export { AnswerCheckUnavailableError, type AnswerCheck } from './answer-check.js';
export { OpenApiMismatchError } from './openapi-mismatch.js';
export { TEST_KEYS, TEST_SECRET_VALUES, testSeed } from './test-seed.js';
