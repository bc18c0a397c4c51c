/**
 * `@opentelemetry/api`, an optional peer dependency of `@vane/client`,
 * loaded once per client when telemetry is on. Without it nothing is
 * recorded and nothing else is loaded. The types below are the part of the
 * API the client uses, written here so that the client's declarations never
 * name a package the app may not have installed (a spec checks that the
 * real API satisfies them).
 *
 * @packageDocumentation
 */
import { isModuleNotFound, type ModuleImporter } from '@vane/common';

/** Attribute values the client records: strings, numbers and booleans only. */
export type OtelAttributes = Record<string, string | number | boolean>;

/** An OpenTelemetry context (opaque to the client). */
export type OtelContext = object;

/** A histogram or gauge: one recorded value at a time. */
export interface OtelRecorder {
  record(value: number, attributes?: OtelAttributes): void;
}

/** A counter. */
export interface OtelCounter {
  add(value: number, attributes?: OtelAttributes): void;
}

/** What an observable's callback is given. */
export interface OtelObservableResult {
  observe(value: number, attributes?: OtelAttributes): void;
}

/** An asynchronous instrument, read at each collection. */
export interface OtelObservable {
  addCallback(callback: (result: OtelObservableResult) => void): void;
  removeCallback(callback: (result: OtelObservableResult) => void): void;
}

/** What an instrument is created with. */
export interface OtelInstrumentOptions {
  description?: string;
  unit?: string;
  advice?: { explicitBucketBoundaries?: number[] };
}

/** The part of a `Meter` the client uses. */
export interface OtelMeter {
  createHistogram(name: string, options?: OtelInstrumentOptions): OtelRecorder;
  createCounter(name: string, options?: OtelInstrumentOptions): OtelCounter;
  createObservableGauge(name: string, options?: OtelInstrumentOptions): OtelObservable;
}

/** The part of a `Span` the client uses. */
export interface OtelSpan {
  setAttribute(key: string, value: string | number | boolean): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  addEvent(name: string, attributes?: OtelAttributes): unknown;
  isRecording(): boolean;
  end(): void;
}

/** What a span is started with. */
export interface OtelSpanOptions {
  kind?: number;
  attributes?: OtelAttributes;
  root?: boolean;
}

/** The part of a `Tracer` the client uses. */
export interface OtelTracer {
  startSpan(name: string, options?: OtelSpanOptions, context?: OtelContext): OtelSpan;
}

/** The part of `@opentelemetry/api` the client uses. */
export interface OtelApi {
  readonly metrics: { getMeter(name: string, version?: string): OtelMeter };
  readonly trace: {
    getTracer(name: string, version?: string): OtelTracer;
    getActiveSpan(): OtelSpan | undefined;
    setSpan(context: OtelContext, span: OtelSpan): OtelContext;
  };
  readonly context: {
    active(): OtelContext;
    with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
      context: OtelContext,
      fn: F,
      thisArg?: ThisParameterType<F>,
      ...args: A
    ): ReturnType<F>;
  };
  readonly propagation: { inject(context: OtelContext, carrier: Record<string, string>): void };
  readonly ROOT_CONTEXT: OtelContext;
  /** A meter that records nothing, to tell whether an SDK registered a meter provider. */
  createNoopMeter(): OtelMeter;
}

/** The API's `SpanKind.INTERNAL`. */
export const SPAN_KIND_INTERNAL = 0;
/** The API's `SpanKind.CLIENT`. */
export const SPAN_KIND_CLIENT = 2;
/** The API's `SpanStatusCode.ERROR`. */
export const SPAN_STATUS_ERROR = 2;

const defaultImporter: ModuleImporter = (name) => import(name);

/** What {@link loadOtelApi} found. */
export type OtelApiLoad =
  | { readonly api: OtelApi }
  | { readonly api: undefined; readonly reason: 'not-installed' | 'not-loadable'; readonly detail?: string };

/**
 * Loads `@opentelemetry/api`. Never rejects: an app without the package
 * simply gets no telemetry.
 */
export async function loadOtelApi(importer: ModuleImporter = defaultImporter): Promise<OtelApiLoad> {
  let loaded: unknown;
  try {
    loaded = await importer('@opentelemetry/api');
  } catch (err) {
    if (isModuleNotFound(err)) {
      return { api: undefined, reason: 'not-installed' };
    }
    // Only the first line: Node's message goes on with the whole require stack.
    const detail = err instanceof Error ? err.message.split('\n')[0] : undefined;
    return { api: undefined, reason: 'not-loadable', ...(detail !== undefined && { detail }) };
  }
  // The ESM build of the API has named exports; a CommonJS interop may put them under `default`.
  const mod = loaded as Partial<OtelApi> & { default?: Partial<OtelApi> };
  const api = mod.metrics !== undefined ? mod : mod.default;
  if (api?.metrics === undefined || api.trace === undefined || api.context === undefined) {
    return { api: undefined, reason: 'not-loadable', detail: 'the module does not look like @opentelemetry/api' };
  }
  return { api: api as OtelApi };
}
