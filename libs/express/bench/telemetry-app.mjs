// The app the telemetry benchmark loads: a route behind vane.requireFlag(), on the built packages, with a
// local server in the same process. TRACING=on registers the OpenTelemetry SDK (a tracer provider whose
// spans are dropped once ended, an async-hooks context manager) and opens a span per request, as HTTP
// instrumentation does, so the guard's feature_flag.evaluation event has somewhere to go. TRACING=off:
// no SDK, no span, `telemetry: false`. TRACING=app: the SDK and the spans, but `telemetry: false` (what
// tracing costs without Vane's share). Prints {"port": n} once it listens.
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createVane } from '@vane/express';
import { startVaneServer } from '@vane/server';
import express from 'express';

const TRACING = process.env.TRACING === 'on' || process.env.TRACING === 'app';
if (TRACING) {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const dropped = { export: (_spans, done) => done({ code: 0 }), shutdown: () => Promise.resolve() };
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(dropped)] }));
}

const KEY = 'svs_bench_secret_key_0000000001';
const server = await startVaneServer({
  seed: { services: { bench: { keys: [KEY], flags: { 'bench-flag': { is_enabled: true } } } } },
  port: 0,
});
const vane = await createVane({
  baseUrl: server.baseUrl('bench'),
  apiKey: KEY,
  logger: { warn() {}, error() {} },
  telemetry: process.env.TRACING === 'on',
});
const app = express();
if (TRACING) {
  const tracer = trace.getTracer('http');
  app.use((req, res, next) => {
    tracer.startActiveSpan(`${req.method} ${req.path}`, (span) => {
      res.on('finish', () => span.end());
      next();
    });
  });
}
app.use(vane.middleware());
app.get('/guarded', vane.requireFlag('bench-flag'), (_req, res) => res.json({ ok: true }));
const listener = app.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: listener.address().port })));
process.on('SIGTERM', () => {
  listener.close();
  void vane.close().then(() => server.close());
});
