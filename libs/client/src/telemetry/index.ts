/**
 * Telemetry: Vane's sync health, calls and flag decisions through
 * OpenTelemetry (an optional peer, loaded lazily).
 *
 * @packageDocumentation
 */
export { ClientTelemetry } from './client-telemetry.js';
export type { VaneTelemetry, TelemetryParts, FlagDecisionSource } from './client-telemetry.js';
export type { FlagEvaluation, FlagEvaluationReason } from './flag-evaluation.js';
export type { VaneTelemetryOptions } from './telemetry-options.js';
export type { TelemetryExtension, TelemetryExtensionContext } from './telemetry-extension.js';
export { VANE_METRICS, VANE_ATTRIBUTES } from './vane-metrics.js';
