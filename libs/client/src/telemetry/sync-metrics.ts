/**
 * Sync health as metrics: what the snapshot is (age, revision, rejected
 * configs), how it is kept current (stream connected, sync mode), and what
 * happened to it (sync durations by outcome, changes applied by kind,
 * propagation lag, file secret write failures).
 *
 * @packageDocumentation
 */
import { SYNC_MODES, type ClientStatus } from '../data-sources/client-status.js';
import type { SnapshotSync, SyncOutcome } from '../data-sources/snapshot-sync.js';
import type { StateStore } from '../store/state-store.js';
import type { StateUpdate } from '../store/state-update.js';
import type { Clock } from '../util/timers.js';
import { counterOf, gaugeOf, histogramOf } from './instruments.js';
import type { OtelMeter, OtelObservable, OtelObservableResult } from './otel-api.js';
import { VANE_ATTRIBUTES, VANE_METRICS } from './vane-metrics.js';

/** What the sync metrics read and follow. */
export interface SyncMetricSources {
  readonly store: StateStore;
  readonly status: ClientStatus;
  readonly sync: SnapshotSync;
  readonly clock: Clock;
  /** The service slug, for `vane.service.slug`. */
  slug(): string;
}

/** The outcome attribute of a sync: `200`, `304`, or the failure's code. */
export function syncOutcomeOf(outcome: SyncOutcome): string {
  if (outcome.error === undefined) return String(outcome.status ?? 200);
  return errorCodeOf(outcome.error);
}

/** The stable code of an error (`VANE_…`), else `_OTHER`. */
export function errorCodeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('VANE_') ? code : '_OTHER';
}

/**
 * Registers the sync-health instruments on `meter` and follows the client.
 *
 * @returns a function that stops every observation and subscription.
 */
export function registerSyncMetrics(meter: OtelMeter, s: SyncMetricSources): () => void {
  const gauges: [OtelObservable, (result: OtelObservableResult) => void][] = [
    [
      gaugeOf(meter, VANE_METRICS.snapshotAge),
      (result) => {
        const confirmedAtMs = s.store.confirmedAtMs;
        if (confirmedAtMs === undefined) return;
        result.observe(Math.max(0, s.clock.now() - confirmedAtMs) / 1000, { [VANE_ATTRIBUTES.slug]: s.slug() });
      },
    ],
    [
      gaugeOf(meter, VANE_METRICS.revision),
      (result) => {
        if (s.store.confirmedAtMs === undefined) return;
        result.observe(s.store.snapshot.revision, { [VANE_ATTRIBUTES.slug]: s.slug() });
      },
    ],
    [
      gaugeOf(meter, VANE_METRICS.streamConnected),
      (result) => result.observe(s.status.current.connected ? 1 : 0, { [VANE_ATTRIBUTES.slug]: s.slug() }),
    ],
    [
      gaugeOf(meter, VANE_METRICS.syncMode),
      (result) => {
        const slug = s.slug();
        const current = s.status.current.mode;
        for (const mode of SYNC_MODES)
          result.observe(mode === current ? 1 : 0, { [VANE_ATTRIBUTES.slug]: slug, [VANE_ATTRIBUTES.syncMode]: mode });
      },
    ],
    [
      gaugeOf(meter, VANE_METRICS.invalidConfigs),
      (result) => result.observe(s.store.invalid.size, { [VANE_ATTRIBUTES.slug]: s.slug() }),
    ],
  ];
  for (const [gauge, callback] of gauges) gauge.addCallback(callback);

  const changes = counterOf(meter, VANE_METRICS.changesApplied);
  const lag = histogramOf(meter, VANE_METRICS.propagationLag);
  const offUpdate = s.store.onUpdate((update: StateUpdate) => {
    const slug = s.slug();
    const byKind = { config: 0, flag: 0, secret: 0 };
    for (const change of update.changes) byKind[change.kind]++;
    for (const [kind, count] of Object.entries(byKind))
      if (count > 0) changes.add(count, { [VANE_ATTRIBUTES.slug]: slug, [VANE_ATTRIBUTES.changeKind]: kind });
    // Only a patch carries the commit time; a negative lag (the app's clock behind the service's) is recorded as 0.
    if (update.committedAtMs !== undefined)
      lag.record(Math.max(0, update.appliedAtMs - update.committedAtMs) / 1000, { [VANE_ATTRIBUTES.slug]: slug });
  });

  const durations = histogramOf(meter, VANE_METRICS.syncDuration);
  const fileErrors = counterOf(meter, VANE_METRICS.fileSecretWriteErrors);
  const offOutcome = s.sync.onOutcome((outcome) => {
    const slug = s.slug();
    if (outcome.kind === 'sync')
      durations.record(outcome.durationMs / 1000, {
        [VANE_ATTRIBUTES.slug]: slug,
        [VANE_ATTRIBUTES.syncOutcome]: syncOutcomeOf(outcome),
      });
    if (outcome.error !== undefined && errorCodeOf(outcome.error) === 'VANE_SECRET_FILE_WRITE')
      fileErrors.add(1, { [VANE_ATTRIBUTES.slug]: slug });
  });

  return () => {
    for (const [gauge, callback] of gauges) gauge.removeCallback(callback);
    offUpdate();
    offOutcome();
  };
}
