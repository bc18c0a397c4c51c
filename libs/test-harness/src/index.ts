/**
 * `@vane/test-harness`: Vane's own test harness, never published — Node
 * processes with bounded waits on what they print, a proxy that records
 * requests and breaks things on purpose, and the seed the adapters' suites
 * share. What an app's tests use (a server, a seed, waits) is on
 * `@vane/server/testing`.
 *
 * @packageDocumentation
 */
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
export { ADAPTER_KEYS, ADAPTER_SECRET_VALUES, adapterSeed } from './adapter-seed.js';
export { checkFleetHistory, type CheckOptions, type Violation } from './fleet-history-check.js';
export { renderFleetHistory } from './fleet-history-report.js';
export { definitelyRefused, outcomeUnknown } from './fleet-history-secret-check.js';
export type {
  FaultRecord,
  FinalSecret,
  FinalState,
  FleetHistory,
  SecretDeleteRecord,
  SecretWriteRecord,
  StreamEvent,
  StreamRecord,
  SyncRecord,
  WriteRecord,
} from './fleet-history.js';
