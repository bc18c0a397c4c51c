/**
 * Builds the data sources a client runs after its initial sync.
 *
 * @packageDocumentation
 */
import type { ServiceHttp } from '../http/service-http.js';
import type { ResolvedOptions } from '../options.js';
import type { StateStore } from '../store/state-store.js';
import type { SourceEvents } from './data-source.js';
import { PollingSource } from './polling-source.js';
import type { SnapshotSync } from './snapshot-sync.js';
import { StreamingSource } from './streaming-source.js';

/** The sources of one client. */
export interface DataSources {
  readonly polling: PollingSource;
  /** Absent with `stream: false`. */
  readonly streaming: StreamingSource | undefined;
}

/** What {@link createDataSources} wires together. */
export interface DataSourceParts {
  readonly options: ResolvedOptions;
  readonly http: ServiceHttp;
  readonly store: StateStore;
  readonly sync: SnapshotSync;
  /** Where both sources report (the supervisor). */
  readonly events: SourceEvents;
}

/** The TTL poll always, the stream unless `stream: false`; both idle until scheduled. */
export function createDataSources({ options: o, http, store, sync, events }: DataSourceParts): DataSources {
  const polling = new PollingSource(sync, o.timers, events);
  const streaming = o.stream
    ? new StreamingSource({
        http,
        store,
        sync,
        timers: o.timers,
        logger: o.logger,
        events,
        idleTimeoutMs: o.streamIdleTimeoutMs,
        timeoutMs: o.timeoutMs,
      })
    : undefined;
  return { polling, streaming };
}
