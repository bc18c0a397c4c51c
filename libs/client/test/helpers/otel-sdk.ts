/**
 * The OpenTelemetry SDK as an app registers it, with in-memory exporters:
 * every metric and span the code records, read back by tests. One home for
 * every package's telemetry specs (Express, Nest and OpenFeature import it).
 */
import { context, metrics, propagation, trace, type Attributes } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AggregationTemporality,
  DataPointType,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type MetricData,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';

/** One data point of a metric: its attributes and its value (a histogram's count, sum and buckets). */
export interface Point {
  readonly attributes: Attributes;
  /** A gauge's or a counter's value; a histogram's sum. */
  readonly value: number;
  /** Histograms only: how many values were recorded. */
  readonly count?: number;
}

/** The SDK registered globally; `uninstall()` unregisters it. */
export class OtelSdk {
  readonly spanExporter = new InMemorySpanExporter();
  readonly #metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  readonly #reader = new PeriodicExportingMetricReader({
    exporter: this.#metricExporter,
    // Collected on demand (forceFlush) only.
    exportIntervalMillis: 3_600_000,
  });
  readonly meterProvider = new MeterProvider({ readers: [this.#reader] });
  /** Called with each span as it ends (see {@link OtelSdk.spanEnded}). */
  readonly #ended = new Set<(span: ReadableSpan) => void>();
  readonly tracerProvider = new BasicTracerProvider({
    spanProcessors: [
      new SimpleSpanProcessor(this.spanExporter),
      {
        onStart: () => undefined,
        onEnd: (span) => {
          for (const listener of [...this.#ended]) listener(span);
        },
        forceFlush: () => Promise.resolve(),
        shutdown: () => Promise.resolve(),
      },
    ],
  });
  readonly #contextManager = new AsyncLocalStorageContextManager().enable();

  private constructor() {}

  /** Registers a meter provider, a tracer provider and an async-hooks context manager, as an app's setup does. */
  static install(options: { metrics?: boolean } = {}): OtelSdk {
    const sdk = new OtelSdk();
    context.setGlobalContextManager(sdk.#contextManager);
    trace.setGlobalTracerProvider(sdk.tracerProvider);
    if (options.metrics !== false) metrics.setGlobalMeterProvider(sdk.meterProvider);
    return sdk;
  }

  /** Collects every metric now. */
  async collect(): Promise<MetricData[]> {
    this.#metricExporter.reset();
    await this.#reader.forceFlush();
    const exported = this.#metricExporter.getMetrics();
    const last = exported[exported.length - 1];
    return last === undefined ? [] : last.scopeMetrics.flatMap((scope) => scope.metrics);
  }

  /** The data points of metric `name`, collected now. */
  async points(name: string): Promise<Point[]> {
    const metric = (await this.collect()).find((m) => m.descriptor.name === name);
    if (metric === undefined) return [];
    return metric.dataPoints.map((p) => {
      if (metric.dataPointType === DataPointType.HISTOGRAM) {
        const h = p.value as { sum?: number; count: number };
        return { attributes: p.attributes, value: h.sum ?? 0, count: h.count };
      }
      return { attributes: p.attributes, value: p.value as number };
    });
  }

  /** The value of metric `name` at the point whose attributes include `match`; undefined when none. */
  async value(name: string, match: Attributes = {}): Promise<Point | undefined> {
    return (await this.points(name)).find((p) =>
      Object.entries(match).every(([key, value]) => p.attributes[key] === value),
    );
  }

  /** Spans ended so far. */
  spans(): ReadableSpan[] {
    return this.spanExporter.getFinishedSpans();
  }

  /**
   * Resolves with the next `count` spans named `name` to end (subscribe
   * before causing them); rejects after `timeoutMs` of real time.
   */
  spansEnded(name: string, count = 1, timeoutMs = 5000): Promise<ReadableSpan[]> {
    return new Promise((resolve, reject) => {
      const ended: ReadableSpan[] = [];
      const listener = (span: ReadableSpan): void => {
        if (span.name !== name || ended.push(span) < count) return;
        clearTimeout(timer);
        this.#ended.delete(listener);
        resolve(ended);
      };
      const timer = setTimeout(() => {
        this.#ended.delete(listener);
        reject(new Error(`${ended.length} of ${count} span(s) "${name}" ended within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#ended.add(listener);
    });
  }

  /** Resolves with the next span named `name` to end (see {@link OtelSdk.spansEnded}). */
  async spanEnded(name: string, timeoutMs = 5000): Promise<ReadableSpan> {
    const [span] = await this.spansEnded(name, 1, timeoutMs);
    return span!;
  }

  /** Runs `fn` inside an active span named `name` (as an app's HTTP instrumentation would), ending it after. */
  async inSpan<T>(name: string, fn: () => Promise<T> | T): Promise<{ result: T; span: ReadableSpan }> {
    const tracer = trace.getTracer('test-app');
    return tracer.startActiveSpan(name, async (span) => {
      try {
        const result = await fn();
        return { result, span: span as unknown as ReadableSpan };
      } finally {
        span.end();
      }
    });
  }

  /**
   * Every attribute value recorded anywhere (span attributes, span event
   * attributes, metric point attributes), as text: for checks that no key,
   * token or secret value leaks.
   */
  async everyRecordedText(): Promise<string[]> {
    const texts: string[] = [];
    const add = (attributes: Attributes): void => {
      for (const [key, value] of Object.entries(attributes)) texts.push(`${key}=${String(value)}`);
    };
    for (const span of this.spans()) {
      texts.push(span.name);
      add(span.attributes);
      for (const event of span.events) {
        texts.push(event.name);
        add(event.attributes ?? {});
      }
    }
    for (const metric of await this.collect()) for (const point of metric.dataPoints) add(point.attributes);
    return texts;
  }

  /** Unregisters everything and shuts the providers down. */
  async uninstall(): Promise<void> {
    trace.disable();
    metrics.disable();
    context.disable();
    propagation.disable();
    this.#contextManager.disable();
    await Promise.all([this.meterProvider.shutdown(), this.tracerProvider.shutdown()]);
  }
}
