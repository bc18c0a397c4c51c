/**
 * One client's telemetry: loads `@opentelemetry/api` when the client starts,
 * and, when an SDK is registered, records the sync-health metrics, a span
 * per call to the service and flag decisions as span events. Reads never
 * come here: metrics about the snapshot are observed at collection time.
 *
 * @packageDocumentation
 */
import { performance } from 'node:perf_hooks';
import type { AbContext, AbPlan, AbResults } from '@vane/client-core';
import type { ModuleImporter } from '@vane/common';
import type { AbEvaluator } from '../ab/ab-evaluator.js';
import type { ClientStatus } from '../data-sources/client-status.js';
import type { SnapshotSync } from '../data-sources/snapshot-sync.js';
import type { Transport } from '../http/transport.js';
import { CLIENT_VERSION } from '../http/version.js';
import type { StateStore } from '../store/state-store.js';
import type { Snapshot } from '@vane/client-core';
import type { VaneLogger } from '../util/logger.js';
import type { FlagState } from '../vane-reader.js';
import type { Clock, Timers } from '../util/timers.js';
import { AbTelemetry } from './ab-telemetry.js';
import { addFlagEvaluationEvent, plainFlagEvaluation, type FlagEvaluation } from './flag-evaluation.js';
import {
  loadOtelApi,
  SPAN_KIND_INTERNAL,
  type OtelApi,
  type OtelAttributes,
  type OtelMeter,
  type OtelSpan,
  type OtelTracer,
} from './otel-api.js';
import { TracedTransport } from './service-spans.js';
import { registerSyncMetrics } from './sync-metrics.js';
import type { TelemetryExtension } from './telemetry-extension.js';
import type { ResolvedTelemetryOptions } from './telemetry-options.js';
import { VANE_ATTRIBUTES } from './vane-metrics.js';

/** The instrumentation scope name of every span and metric. */
export const SCOPE_NAME = '@vane/client';

/**
 * `client.telemetry`: flag decisions of the app's own code (and of Vane's
 * adapters) recorded the way Vane records its own. Every method returns at
 * once when telemetry is off, `@opentelemetry/api` is not installed, or no
 * span is active.
 */
export interface VaneTelemetry {
  /** True when telemetry is on and `@opentelemetry/api` was loaded (spans and events can be recorded). */
  readonly active: boolean;
  /**
   * Records the decision a plain read of flag `key` makes now (its
   * `is_active` at the current revision; reason `static`, `disabled`, or
   * `error` with `flag_not_found`) as a `feature_flag.evaluation` event on
   * the active span.
   *
   * @param userId - the request's user, recorded only with `telemetry: { recordUserId: true }`.
   * @param from - the reader the decision was made on (a request's pinned view), when it is not
   *   the one reads answer from here: its revision and flag state are recorded.
   */
  recordFlag(key: string, userId?: string, from?: FlagDecisionSource): void;
  /** Records any flag decision as a `feature_flag.evaluation` event on the active span, at the current revision. */
  recordFlagEvaluation(evaluation: FlagEvaluation): void;
}

/** A reader a flag decision was made on: a client or a view (`VaneView`). */
export interface FlagDecisionSource {
  /** The revision it reads. */
  readonly revision: number;
  /** The flag's state at that revision. */
  flagState(key: string): FlagState;
}

/** What telemetry follows once the client has built its parts. */
export interface TelemetryParts {
  readonly store: StateStore;
  /** The snapshot a read answers from here (a pinned scope's, else the served one): what flag events record. */
  readonly reads?: () => Snapshot;
  readonly status: ClientStatus;
  readonly sync: SnapshotSync;
}

/** Settings of {@link ClientTelemetry}. */
export interface ClientTelemetrySettings {
  readonly options: ResolvedTelemetryOptions;
  readonly baseUrl: URL;
  readonly clock: Clock;
  readonly logger: VaneLogger;
  /** Loads `@opentelemetry/api`; swapped in tests to simulate a missing package. */
  readonly importer?: ModuleImporter;
}

/** What is live once started with the API. */
interface Live {
  readonly api: OtelApi;
  readonly tracer: OtelTracer;
  /** Undefined when no SDK registered a meter provider before the client started. */
  readonly meter: OtelMeter | undefined;
  readonly ab: AbTelemetry;
}

/** One client's telemetry (internal; the client exposes it as {@link VaneTelemetry}). */
export class ClientTelemetry implements VaneTelemetry {
  readonly #s: ClientTelemetrySettings;
  readonly #hostSlug: string;
  readonly #extensions: TelemetryExtension[] = [];
  readonly #stops: (() => void)[] = [];
  #live: Live | undefined;
  #parts: TelemetryParts | undefined;
  #stopped = false;

  /** @param settings - options, base URL, clock, logger. */
  constructor(settings: ClientTelemetrySettings) {
    this.#s = settings;
    // PROTOCOL §1: the first label of the host is the slug; the snapshot's own slug wins once it is in.
    this.#hostSlug = settings.baseUrl.hostname.split('.')[0] ?? '';
  }

  get active(): boolean {
    return this.#live !== undefined;
  }

  /** The service slug (`vane.service.slug`): the snapshot's, else the base URL's first label. */
  slug(): string {
    return this.#parts?.store.snapshot.service.slug || this.#hostSlug;
  }

  /** `transport` with a span per request (the same transport when telemetry is off). */
  traced(transport: Transport): Transport {
    if (!this.#s.options.enabled) return transport;
    return new TracedTransport(transport, this.#s.baseUrl, () =>
      this.#live === undefined
        ? undefined
        : { api: this.#live.api, tracer: this.#live.tracer, slug: () => this.slug() },
    );
  }

  /**
   * `timers` whose callbacks run detached from the app's trace context: the
   * client's background work (polls, reconnects, session refreshes) is never
   * recorded as part of the request that happened to schedule it.
   */
  detached(timers: Timers): Timers {
    if (!this.#s.options.enabled) return timers;
    return {
      setTimeout: (callback, delayMs) => timers.setTimeout(() => this.detach(callback), delayMs),
      clearTimeout: (handle) => timers.clearTimeout(handle),
    };
  }

  /** Runs `fn` detached from the app's trace context (see {@link ClientTelemetry.detached}). */
  detach<T>(fn: () => T): T {
    const live = this.#live;
    return live === undefined ? fn() : live.api.context.with(live.api.ROOT_CONTEXT, fn);
  }

  /**
   * Runs `work`, background work of a feature built on the client (a live
   * resource's rebuild), in an internal span `name` of its own: a new trace,
   * whatever request happened to trigger it, and the parent of the spans
   * `work` makes. The span carries `vane.service.slug` and `attributes`,
   * and ends when `work` settles; `work` sets its outcome. When telemetry is
   * not active, `work` runs as is and gets `undefined`.
   */
  inBackgroundSpan<T>(
    name: string,
    attributes: OtelAttributes,
    work: (span: OtelSpan | undefined) => Promise<T>,
  ): Promise<T> {
    const live = this.#live;
    if (live === undefined) return work(undefined);
    const { api } = live;
    let span: OtelSpan;
    try {
      span = live.tracer.startSpan(
        name,
        { kind: SPAN_KIND_INTERNAL, root: true, attributes: { [VANE_ATTRIBUTES.slug]: this.slug(), ...attributes } },
        api.ROOT_CONTEXT,
      );
    } catch {
      // A failing tracer (an SDK's defect) costs the span, never the work.
      return this.detach(() => work(undefined));
    }
    const context = api.trace.setSpan(api.ROOT_CONTEXT, span);
    let pending: Promise<T>;
    try {
      pending = api.context.with(context, () => work(span));
    } catch (error) {
      pending = Promise.reject(error as Error);
    }
    return pending.finally(() => span.end());
  }

  /**
   * Adds metrics of another feature (live resources): started with the
   * built-in ones, stopped with them.
   */
  extend(extension: TelemetryExtension): void {
    this.#extensions.push(extension);
    if (this.#live?.meter !== undefined && !this.#stopped) this.#startExtension(extension, this.#live.meter);
  }

  /**
   * Loads the API and starts recording: spans and events whenever the API
   * is there (a tracer provider registered later is picked up), metrics
   * when an SDK registered a meter provider before this call. Never rejects.
   */
  async start(parts: TelemetryParts): Promise<void> {
    this.#parts = parts;
    if (!this.#s.options.enabled || this.#stopped) return;
    const loaded = await loadOtelApi(this.#s.importer);
    if (loaded.api === undefined) {
      if (loaded.reason === 'not-loadable')
        this.#s.logger.warn(
          `telemetry: @opentelemetry/api is installed but could not be loaded (${loaded.detail ?? 'unknown'}); telemetry is off`,
        );
      return;
    }
    if (this.#stopped) return;
    const api = loaded.api;
    try {
      const meter = api.metrics.getMeter(SCOPE_NAME, CLIENT_VERSION);
      // A meter of the API's no-op provider means no SDK registered one: nothing to record.
      const real = meter.constructor !== api.createNoopMeter().constructor ? meter : undefined;
      this.#live = {
        api,
        tracer: api.trace.getTracer(SCOPE_NAME, CLIENT_VERSION),
        meter: real,
        ab: new AbTelemetry(real, this.#s.options.recordUserId),
      };
      if (real === undefined) return;
      this.#stops.push(registerSyncMetrics(real, { ...parts, clock: this.#s.clock, slug: () => this.slug() }));
      for (const extension of this.#extensions) this.#startExtension(extension, real);
    } catch (err) {
      // An SDK that throws from its own API must not stop the client.
      this.#s.logger.warn(
        `telemetry: could not start (${err instanceof Error ? err.name : typeof err}); telemetry is off`,
      );
      this.stop();
    }
  }

  /** Stops every observation and subscription (at `close()`). Idempotent. */
  stop(): void {
    this.#stopped = true;
    this.#live = undefined;
    for (const stop of this.#stops.splice(0)) {
      try {
        stop();
      } catch {
        // Stopping is best effort: a closed client reports nothing either way.
      }
    }
  }

  /** Observes an `evaluateAb()` call that `run` sends. */
  evaluateAb(plan: AbPlan, userId: string, run: () => Promise<AbResults>): Promise<AbResults> {
    const live = this.#live;
    if (live === undefined) return run();
    const store = this.#parts?.store;
    return live.ab.observe(
      plan,
      userId,
      live.api.trace.getActiveSpan(),
      this.slug(),
      () => store?.snapshot.revision ?? 0,
      run,
    );
  }

  /**
   * Answers an evaluation from the cache alone (`evaluateAbCached()`:
   * `evaluator.cached(…)`), recorded like an `evaluateAb()` call when it
   * answers. No closure, and nothing but the call when telemetry is off.
   */
  evaluateAbCached(
    evaluator: AbEvaluator,
    keys: readonly string[],
    context: AbContext,
    flags: ReadonlyMap<string, unknown>,
    revision: number,
  ): AbResults | undefined {
    const live = this.#live;
    if (live === undefined) return evaluator.cached(keys, context, flags, revision);
    const startedAt = live.ab.timed ? performance.now() : 0;
    const results = evaluator.cached(keys, context, flags, revision);
    if (results !== undefined)
      live.ab.recordCached(
        results,
        flags,
        context.userId,
        live.api.trace.getActiveSpan(),
        this.slug(),
        revision,
        startedAt,
      );
    return results;
  }

  recordFlag(key: string, userId?: string, from?: FlagDecisionSource): void {
    const live = this.#live;
    const store = this.#parts?.store;
    if (live === undefined || store === undefined) return;
    const span = live.api.trace.getActiveSpan();
    if (span === undefined || !span.isRecording()) return;
    if (from !== undefined) {
      const evaluation = plainFlagEvaluation(key, from.flagState(key), userId);
      addFlagEvaluationEvent(span, evaluation, from.revision, this.#s.options.recordUserId);
      return;
    }
    const snapshot = this.#parts?.reads?.() ?? store.snapshot;
    const flag = snapshot.flags.get(key);
    const state = flag === undefined ? { defined: false, active: false } : { defined: true, active: flag.isActive };
    addFlagEvaluationEvent(
      span,
      plainFlagEvaluation(key, state, userId),
      snapshot.revision,
      this.#s.options.recordUserId,
    );
  }

  recordFlagEvaluation(evaluation: FlagEvaluation): void {
    const live = this.#live;
    if (live === undefined) return;
    const span = live.api.trace.getActiveSpan();
    const revision = (this.#parts?.reads?.() ?? this.#parts?.store.snapshot)?.revision ?? 0;
    addFlagEvaluationEvent(span, evaluation, revision, this.#s.options.recordUserId);
  }

  #startExtension(extension: TelemetryExtension, meter: OtelMeter): void {
    try {
      this.#stops.push(extension.start({ meter, attributes: () => ({ [VANE_ATTRIBUTES.slug]: this.slug() }) }));
    } catch (err) {
      this.#s.logger.warn(`telemetry: an extension could not start (${err instanceof Error ? err.name : typeof err})`);
    }
  }
}
