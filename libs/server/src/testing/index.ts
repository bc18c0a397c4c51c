/**
 * `@vane/server/testing`: what tests that run against the local server
 * need beside it — bounded waits on a client's events, the admin API over
 * HTTP, a proxy that records requests and breaks things on purpose, Node
 * processes with bounded waits on what they print, and a small seed. Vane's own packages test with it; so can your app. An entry of
 * its own, kept off `@vane/server`; it imports no client and no
 * framework (the waits take any object with `onUpdate`, `onChange` or
 * `onStatusChange`, such as a `VaneClient`).
 *
 * @packageDocumentation
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
export { AdminRequestError, adminPut, adminRequest, type AdminAnswer, type AdminEndpoint } from './admin-http.js';
export { FaultProxy, rawResponse, type RecordedRequest, type RequestFault } from './fault-proxy.js';
export {
  PROCESS_TEST_MS,
  PROCESS_WAIT_MS,
  groupAlive,
  trackGroup,
  spawnNode,
  stopProcesses,
  type LineWaitOptions,
  type NodeProcess,
  type ProcessExit,
  type SpawnNodeOptions,
} from './processes.js';
export { TEST_KEYS, TEST_SECRET_VALUES, testSeed } from './test-seed.js';
export { ADAPTER_KEYS, ADAPTER_SECRET_VALUES, adapterSeed } from './adapter-seed.js';
