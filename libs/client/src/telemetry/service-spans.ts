/**
 * A span for each call to the service: the transport every request goes
 * through (sync, stream connect, evaluate-ab, token exchange, secret
 * writes) is wrapped, so no call can be missed. Attributes follow
 * OpenTelemetry's HTTP client conventions and never hold a key, a token or
 * a value: the URL is the route's template (`/v1/secrets/{key}`), with the
 * secret's name replaced by `REDACTED` in `url.full`.
 *
 * @packageDocumentation
 */
import type { Transport, TransportRequest, TransportResponse } from '../http/transport.js';
import {
  SPAN_KIND_CLIENT,
  SPAN_STATUS_ERROR,
  type OtelApi,
  type OtelAttributes,
  type OtelSpan,
  type OtelTracer,
} from './otel-api.js';
import { VANE_ATTRIBUTES } from './vane-metrics.js';

/** What a traced transport needs once telemetry has started. */
export interface SpanTarget {
  readonly api: OtelApi;
  readonly tracer: OtelTracer;
  /** The service slug, for `vane.service.slug`. */
  slug(): string;
}

/** A call to the service, named by its route. */
interface Route {
  /** `sync`, `stream`, `evaluate-ab`, `token-exchange`, `secret-write`, or `other`. */
  readonly operation: string;
  /** The path template, e.g. `/v1/secrets/{key}` (with the base URL's prefix, if any). */
  readonly template: string;
  /** The path with the secret's name replaced by `REDACTED`. */
  readonly redactedPath: string;
}

const SECRET_PATH = /^v1\/secrets\/[^/]+(\/versions\/(\d+))?$/;
const FIXED: Readonly<Record<string, string>> = {
  'v1/sync': 'sync',
  'v1/stream': 'stream',
  'v1/flags/evaluate-ab': 'evaluate-ab',
  'v1/auth/token-exchange': 'token-exchange',
};

/** The route of `url` under the base URL's path `prefix` (ending in `/`). */
export function routeOf(url: URL, prefix: string): Route {
  const path = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : url.pathname;
  const fixed = FIXED[path];
  if (fixed !== undefined) return { operation: fixed, template: `${prefix}${path}`, redactedPath: `${prefix}${path}` };
  const secret = SECRET_PATH.exec(path);
  if (secret !== null) {
    const version = secret[2];
    return {
      operation: 'secret-write',
      template: `${prefix}v1/secrets/{key}${version === undefined ? '' : '/versions/{version}'}`,
      redactedPath: `${prefix}v1/secrets/REDACTED${version === undefined ? '' : `/versions/${version}`}`,
    };
  }
  return { operation: 'other', template: '', redactedPath: '' };
}

/** `error.type` of a failed request: the error's code (`ECONNREFUSED`, `UND_ERR_…`), else its class name. */
function errorTypeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(code)) return code;
  return error instanceof Error && /^[A-Za-z0-9_]{1,64}$/.test(error.name) ? error.name : '_OTHER';
}

/**
 * Wraps a transport: each request becomes a client span, a child of the
 * active span (background work runs detached, so its calls are root spans),
 * ended when the status and headers are in. The trace context is propagated
 * to the service with the app's registered propagator.
 */
export class TracedTransport implements Transport {
  readonly #prefix: string;

  /**
   * @param inner - the transport that sends.
   * @param baseUrl - the service's base URL (its path prefix is kept in templates).
   * @param target - the tracer, once telemetry has started (`undefined` until then, and without the API).
   */
  constructor(
    private readonly inner: Transport,
    baseUrl: URL,
    private readonly target: () => SpanTarget | undefined,
  ) {
    this.#prefix = baseUrl.pathname.endsWith('/') ? baseUrl.pathname : `${baseUrl.pathname}/`;
  }

  request(request: TransportRequest): Promise<TransportResponse> {
    const target = this.target();
    if (target === undefined) return this.inner.request(request);
    let started: { span: OtelSpan; run: () => Promise<TransportResponse> };
    try {
      started = this.#start(target, request);
    } catch {
      // A failing tracer (an SDK's defect) costs the span, never the request.
      return this.inner.request(request);
    }
    const { span, run } = started;
    let pending: Promise<TransportResponse>;
    try {
      pending = run();
    } catch (error) {
      pending = Promise.reject(error as Error);
    }
    return pending.then(
      (response) => {
        span.setAttribute('http.response.status_code', response.status);
        if (response.status >= 400) {
          span.setAttribute(VANE_ATTRIBUTES.errorType, String(response.status));
          span.setStatus({ code: SPAN_STATUS_ERROR });
        }
        span.end();
        return response;
      },
      (error: unknown) => {
        span.setAttribute(VANE_ATTRIBUTES.errorType, errorTypeOf(error));
        span.setStatus({ code: SPAN_STATUS_ERROR });
        span.end();
        throw error;
      },
    );
  }

  /** Starts the span of `request` and returns it with the call to make inside its context. */
  #start(target: SpanTarget, request: TransportRequest): { span: OtelSpan; run: () => Promise<TransportResponse> } {
    const { api, tracer } = target;
    const url = new URL(request.url);
    const route = routeOf(url, this.#prefix);
    const port = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    const attributes: OtelAttributes = {
      'http.request.method': request.method,
      'server.address': url.hostname,
      'server.port': port,
      'url.full': `${url.origin}${route.redactedPath === '' ? '/' : route.redactedPath}`,
      [VANE_ATTRIBUTES.operation]: route.operation,
      [VANE_ATTRIBUTES.slug]: target.slug(),
    };
    if (route.template !== '') attributes['url.template'] = route.template;
    const name = route.template === '' ? request.method : `${request.method} ${route.template}`;
    const parent = api.context.active();
    const span = tracer.startSpan(name, { kind: SPAN_KIND_CLIENT, attributes }, parent);
    const spanContext = api.trace.setSpan(parent, span);
    const headers: Record<string, string> = { ...request.headers };
    api.propagation.inject(spanContext, headers);
    return { span, run: () => api.context.with(spanContext, () => this.inner.request({ ...request, headers })) };
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
