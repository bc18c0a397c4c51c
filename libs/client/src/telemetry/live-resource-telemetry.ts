/**
 * Live resources as telemetry: each rebuild (a span of its own, counted and
 * timed by outcome) and the old instances still draining. The resource's
 * name is the one its definition gives, never a value, a key or a secret's
 * name; nothing here runs on `current` or `use()`.
 *
 * @packageDocumentation
 */
import { performance } from 'node:perf_hooks';
import type { RebuildOutcome } from '../live-resource/live-resource-source.js';
import type { ClientTelemetry } from './client-telemetry.js';
import { counterOf, gaugeOf, histogramOf } from './instruments.js';
import {
  SPAN_STATUS_ERROR,
  type OtelAttributes,
  type OtelCounter,
  type OtelObservableResult,
  type OtelRecorder,
  type OtelSpan,
} from './otel-api.js';
import type { TelemetryExtension, TelemetryExtensionContext } from './telemetry-extension.js';
import { VANE_ATTRIBUTES, VANE_METRICS } from './vane-metrics.js';

/** The span of one rebuild. */
export const REBUILD_SPAN_NAME = 'vane.live_resource.rebuild';

/**
 * `vane.live_resource.name` of a resource defined without a `name`: its
 * default name joins the keys it reads, secret names included, which
 * telemetry never records.
 */
export const UNNAMED_RESOURCE = '_unnamed';

/** One open resource, as the draining gauge reads it. */
export interface DrainingCount {
  /** The name its definition gives (undefined: none). */
  readonly name: string | undefined;
  /** Old instances not yet disposed of (`status.draining`). */
  readonly draining: number;
}

/** The instruments, once a meter is there. */
interface Instruments {
  readonly rebuilds: OtelCounter;
  readonly duration: OtelRecorder;
  readonly attributes: TelemetryExtensionContext['attributes'];
}

/** The live resources of one client, as telemetry (a {@link TelemetryExtension} of its `ClientTelemetry`). */
export class LiveResourceTelemetry implements TelemetryExtension {
  readonly #telemetry: ClientTelemetry;
  readonly #open: () => Iterable<DrainingCount>;
  #instruments: Instruments | undefined;

  /**
   * @param telemetry - the client's telemetry (this registers itself as an extension of it).
   * @param open - the resources open now, read at each collection.
   */
  constructor(telemetry: ClientTelemetry, open: () => Iterable<DrainingCount>) {
    this.#telemetry = telemetry;
    this.#open = open;
    telemetry.extend(this);
  }

  start(context: TelemetryExtensionContext): () => void {
    const { meter, attributes } = context;
    const draining = gaugeOf(meter, VANE_METRICS.liveResourceDraining);
    const observe = (result: OtelObservableResult): void => {
      const byName = new Map<string, number>();
      for (const resource of this.#open()) {
        const name = resource.name ?? UNNAMED_RESOURCE;
        byName.set(name, (byName.get(name) ?? 0) + resource.draining);
      }
      const common = attributes();
      for (const [name, count] of byName)
        result.observe(count, { ...common, [VANE_ATTRIBUTES.liveResourceName]: name });
    };
    draining.addCallback(observe);
    this.#instruments = {
      rebuilds: counterOf(meter, VANE_METRICS.liveResourceRebuilds),
      duration: histogramOf(meter, VANE_METRICS.liveResourceRebuildDuration),
      attributes,
    };
    return () => {
      draining.removeCallback(observe);
      this.#instruments = undefined;
    };
  }

  /**
   * Runs one rebuild of the resource named `name` (as its definition gives
   * it) in its span, then counts and times it by outcome. Without active
   * telemetry it only runs `rebuild`.
   */
  observeRebuild(name: string | undefined, rebuild: () => Promise<RebuildOutcome>): Promise<RebuildOutcome> {
    if (!this.#telemetry.active) return rebuild();
    const resource = { [VANE_ATTRIBUTES.liveResourceName]: name ?? UNNAMED_RESOURCE };
    return this.#telemetry.inBackgroundSpan(REBUILD_SPAN_NAME, resource, async (span) => {
      const startedAt = performance.now();
      const result = await rebuild();
      this.#record(span, resource, result, (performance.now() - startedAt) / 1000);
      return result;
    });
  }

  #record(span: OtelSpan | undefined, resource: OtelAttributes, result: RebuildOutcome, seconds: number): void {
    const outcome: OtelAttributes = { [VANE_ATTRIBUTES.liveResourceOutcome]: result.outcome };
    if (result.outcome === 'failure') outcome[VANE_ATTRIBUTES.errorType] = result.stage;
    if (span !== undefined) {
      for (const [key, value] of Object.entries(outcome)) span.setAttribute(key, value);
      if (result.outcome === 'failure') span.setStatus({ code: SPAN_STATUS_ERROR });
    }
    // Metrics count rebuilds that built something: a return to the values in service, or a close, is no rebuild.
    const instruments = this.#instruments;
    if (instruments === undefined || (result.outcome !== 'success' && result.outcome !== 'failure')) return;
    const attributes = { ...instruments.attributes(), ...resource, ...outcome };
    instruments.rebuilds.add(1, attributes);
    instruments.duration.record(seconds, attributes);
  }
}
