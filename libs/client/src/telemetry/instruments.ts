/**
 * Instruments built from the metric table, so a name, unit or description
 * is written once (in `vane-metrics.ts`).
 *
 * @packageDocumentation
 */
import type { OtelCounter, OtelInstrumentOptions, OtelMeter, OtelObservable, OtelRecorder } from './otel-api.js';
import type { VaneMetric } from './vane-metrics.js';

function optionsOf(metric: VaneMetric): OtelInstrumentOptions {
  return {
    description: metric.description,
    unit: metric.unit,
    ...(metric.buckets !== undefined && { advice: { explicitBucketBoundaries: [...metric.buckets] } }),
  };
}

/** The histogram of a `histogram` row. */
export function histogramOf(meter: OtelMeter, metric: VaneMetric & { instrument: 'histogram' }): OtelRecorder {
  return meter.createHistogram(metric.name, optionsOf(metric));
}

/** The counter of a `counter` row. */
export function counterOf(meter: OtelMeter, metric: VaneMetric & { instrument: 'counter' }): OtelCounter {
  return meter.createCounter(metric.name, optionsOf(metric));
}

/** The observable gauge of a `gauge` row. */
export function gaugeOf(meter: OtelMeter, metric: VaneMetric & { instrument: 'gauge' }): OtelObservable {
  return meter.createObservableGauge(metric.name, optionsOf(metric));
}
