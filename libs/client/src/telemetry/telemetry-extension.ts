/**
 * The extension point for metrics another part of the client adds (live
 * resources' rebuilds and failures): it gets the same meter, the same
 * service attribute and the same lifecycle as the built-in metrics.
 *
 * @packageDocumentation
 */
import type { OtelAttributes, OtelMeter } from './otel-api.js';

/** What an extension is given when telemetry starts. */
export interface TelemetryExtensionContext {
  /** The client's meter (`@vane/client`). */
  readonly meter: OtelMeter;
  /** Attributes every Vane metric carries (`vane.service.slug`), current at each call. */
  attributes(): OtelAttributes;
}

/**
 * Metrics of a feature built on the client. Add the rows to the table in
 * `vane-metrics.ts` (so the README and docs show them), then register with
 * `ClientTelemetry.extend()`: `start` runs once the SDK's meter is known
 * (at once if it already is), and what it returns runs at `close()`.
 */
export interface TelemetryExtension {
  /** Creates the instruments and subscribes; returns what undoes it. */
  start(context: TelemetryExtensionContext): () => void;
}
