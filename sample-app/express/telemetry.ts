/**
 * OpenTelemetry for the Express sample: with `METRICS=prometheus`, an SDK
 * meter provider whose reader is OpenTelemetry's Prometheus exporter, served
 * at `/metrics` on the app's own port. It is registered before Vane is
 * created: that is all Vane needs to report its sync health.
 */
import express, { type Express } from 'express';

/** The sample's metrics, when on. */
export interface SampleTelemetry {
  /** Puts `GET /metrics` (Prometheus's text format) in front of `app`. */
  serve(app: Express): Express;
  /** Unregisters the meter provider and shuts it down. */
  shutdown(): Promise<void>;
}

/**
 * Starts the metrics when `METRICS=prometheus`; `undefined` otherwise. The
 * OpenTelemetry packages are loaded only then: the sample without metrics
 * starts as fast as before.
 */
// #region telemetry
export async function startTelemetry(env: NodeJS.ProcessEnv = process.env): Promise<SampleTelemetry | undefined> {
  if (env['METRICS'] !== 'prometheus') return undefined;
  const [{ metrics }, { PrometheusExporter }, { MeterProvider }] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/exporter-prometheus'),
    import('@opentelemetry/sdk-metrics'),
  ]);
  const exporter = new PrometheusExporter({ preventServerStart: true });
  const provider = new MeterProvider({ readers: [exporter] });
  metrics.setGlobalMeterProvider(provider);
  return {
    serve: (app) =>
      express()
        .get('/metrics', (req, res) => exporter.getMetricsRequestHandler(req, res))
        .use(app),
    shutdown: async () => {
      metrics.disable();
      await provider.shutdown();
    },
  };
}
// #endregion telemetry
