/**
 * Every metric the client records, with its instrument, unit and attributes:
 * the one table the README and docs/telemetry.md show (a spec keeps them in
 * step). Names follow OpenTelemetry's naming rules: a `vane.client.`
 * namespace, dots between components, no unit in the name, units in UCUM
 * (`s`, `1`) or as annotations (`{change}`).
 *
 * @packageDocumentation
 */

/** Attribute names, each defined once. */
export const VANE_ATTRIBUTES = Object.freeze({
  /** The service's slug (never a key): on every metric. */
  slug: 'vane.service.slug',
  /** One of `SYNC_MODES`. */
  syncMode: 'vane.sync.mode',
  /** `200`, `304`, or the failure's error code (`VANE_RATE_LIMITED`, `VANE_TRANSPORT`, …). */
  syncOutcome: 'vane.sync.outcome',
  /** `config`, `flag` or `secret`. */
  changeKind: 'vane.change.kind',
  /** OpenTelemetry's `error.type`: the failure's error code. */
  errorType: 'error.type',
  /** The call a span stands for: `sync`, `stream`, `evaluate-ab`, `token-exchange`, `secret-write`. */
  operation: 'vane.operation',
  /** A live resource's `name` as its definition gives it (`_unnamed` without one: the default name lists secret names). */
  liveResourceName: 'vane.live_resource.name',
  /** How a live resource's rebuild ended: `success` or `failure` (spans also `unchanged`, `abandoned`). */
  liveResourceOutcome: 'vane.live_resource.outcome',
});

/** How a metric is recorded. */
export type InstrumentKind = 'gauge' | 'counter' | 'histogram';

/** One row of the metric table. */
export interface VaneMetric {
  /** The OpenTelemetry name. */
  readonly name: string;
  readonly instrument: InstrumentKind;
  /** UCUM unit or annotation. */
  readonly unit: string;
  /** Attributes beside `vane.service.slug` (which every metric has). */
  readonly attributes: readonly string[];
  /** What it measures, for the instrument's description. */
  readonly description: string;
  /** Bucket boundaries of a histogram (advice to the SDK). */
  readonly buckets?: readonly number[];
}

/** Boundaries for durations in seconds, 1 ms to 60 s. */
const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The metrics, by the name the code uses. */
export const VANE_METRICS = Object.freeze({
  snapshotAge: {
    name: 'vane.client.snapshot.age',
    instrument: 'gauge',
    unit: 's',
    attributes: [],
    description: 'Time since the snapshot was last confirmed current (a 200 or 304 sync, or an applied patch).',
  },
  revision: {
    name: 'vane.client.snapshot.revision',
    instrument: 'gauge',
    unit: '{revision}',
    attributes: [],
    description: 'Revision of the snapshot the client serves; instances of a fleet that disagree are behind.',
  },
  streamConnected: {
    name: 'vane.client.stream.connected',
    instrument: 'gauge',
    unit: '1',
    attributes: [],
    description: '1 while the live stream is connected, else 0.',
  },
  syncMode: {
    name: 'vane.client.sync.mode',
    instrument: 'gauge',
    unit: '1',
    attributes: [VANE_ATTRIBUTES.syncMode],
    description: 'How the client keeps its snapshot current: 1 for the current mode, 0 for every other mode.',
  },
  syncDuration: {
    name: 'vane.client.sync.duration',
    instrument: 'histogram',
    unit: 's',
    attributes: [VANE_ATTRIBUTES.syncOutcome],
    description: 'Duration of each sync (GET /v1/sync, answer applied), by outcome.',
    buckets: SECONDS,
  },
  changesApplied: {
    name: 'vane.client.changes.applied',
    instrument: 'counter',
    unit: '{change}',
    attributes: [VANE_ATTRIBUTES.changeKind],
    description: 'Values changed by the snapshots the client installed, by kind.',
  },
  propagationLag: {
    name: 'vane.client.propagation.lag',
    instrument: 'histogram',
    unit: 's',
    attributes: [],
    description:
      "From the service's commit of a change (its clock) to this client applying it (the app's clock); patches only.",
    buckets: SECONDS,
  },
  abDuration: {
    name: 'vane.client.ab.evaluation.duration',
    instrument: 'histogram',
    unit: 's',
    attributes: [VANE_ATTRIBUTES.errorType],
    description: 'Duration of each evaluateAb() call (its evaluate-ab requests together); error.type on failure.',
    buckets: SECONDS,
  },
  abKeys: {
    name: 'vane.client.ab.evaluation.keys',
    instrument: 'histogram',
    unit: '{key}',
    attributes: [],
    description: 'Distinct flag keys asked by each evaluateAb() call.',
    buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
  },
  abErrors: {
    name: 'vane.client.ab.evaluation.errors',
    instrument: 'counter',
    unit: '{error}',
    attributes: [VANE_ATTRIBUTES.errorType],
    description: 'evaluateAb() calls that failed, by error code.',
  },
  invalidConfigs: {
    name: 'vane.client.config.invalid',
    instrument: 'gauge',
    unit: '{config}',
    attributes: [],
    description: 'Config keys whose latest value the schema rejects now (readers get their last valid value).',
  },
  fileSecretWriteErrors: {
    name: 'vane.client.file_secret.write.errors',
    instrument: 'counter',
    unit: '{error}',
    attributes: [],
    description: 'Updates whose file secrets could not be written to disk (the update was not installed).',
  },
  liveResourceRebuilds: {
    name: 'vane.client.live_resource.rebuilds',
    instrument: 'counter',
    unit: '{rebuild}',
    attributes: [VANE_ATTRIBUTES.liveResourceName, VANE_ATTRIBUTES.liveResourceOutcome, VANE_ATTRIBUTES.errorType],
    description:
      'Rebuilds of each live resource after a change of the values it reads, by outcome (success, failure); error.type is the stage that failed.',
  },
  liveResourceRebuildDuration: {
    name: 'vane.client.live_resource.rebuild.duration',
    instrument: 'histogram',
    unit: 's',
    attributes: [VANE_ATTRIBUTES.liveResourceName, VANE_ATTRIBUTES.liveResourceOutcome, VANE_ATTRIBUTES.errorType],
    description: 'Duration of each rebuild of a live resource (reading its values, create, ready), by outcome.',
    buckets: SECONDS,
  },
  liveResourceDraining: {
    name: 'vane.client.live_resource.draining',
    instrument: 'gauge',
    unit: '{instance}',
    attributes: [VANE_ATTRIBUTES.liveResourceName],
    description:
      'Old instances of each live resource not yet disposed of: swapped out, waiting for the operations that borrowed them (at most drainTimeoutMs).',
  },
} satisfies Record<string, VaneMetric>);

/** The name the code uses for each metric. */
export type VaneMetricId = keyof typeof VANE_METRICS;
