/**
 * A/B evaluation calls as telemetry: their duration, the keys each asks,
 * their failures, and one `feature_flag.evaluation` event per key on the
 * span that was active when the app asked.
 *
 * @packageDocumentation
 */
import { performance } from 'node:perf_hooks';
import type { AbPlan, AbResults } from '@vane/client-core';
import { addFlagEvaluationEvent } from './flag-evaluation.js';
import { counterOf, histogramOf } from './instruments.js';
import type { OtelCounter, OtelMeter, OtelRecorder, OtelSpan } from './otel-api.js';
import { errorCodeOf } from './sync-metrics.js';
import { VANE_ATTRIBUTES, VANE_METRICS } from './vane-metrics.js';

/** The A/B instruments of one client. */
export class AbTelemetry {
  readonly #duration: OtelRecorder | undefined;
  readonly #keys: OtelRecorder | undefined;
  readonly #errors: OtelCounter | undefined;

  /**
   * @param meter - where the metrics go; `undefined` when no SDK registered a meter provider (events only).
   * @param recordUserId - whether events may carry the user id.
   */
  constructor(
    meter: OtelMeter | undefined,
    private readonly recordUserId: boolean,
  ) {
    if (meter === undefined) return;
    this.#duration = histogramOf(meter, VANE_METRICS.abDuration);
    this.#keys = histogramOf(meter, VANE_METRICS.abKeys);
    this.#errors = counterOf(meter, VANE_METRICS.abErrors);
  }

  /** Whether a duration is recorded (a meter provider is registered): else nobody needs the time. */
  get timed(): boolean {
    return this.#duration !== undefined;
  }

  /**
   * Records an evaluation the cache answered alone (`evaluateAbCached()`),
   * as {@link AbTelemetry.observe} records an `evaluateAb()` call: the keys
   * asked, the duration, and an event per key (`targeting_match` for a flag
   * the snapshot defines, `flag_not_found` otherwise).
   *
   * @param results - the answers, one per distinct key asked.
   * @param flags - the flags the snapshot defines.
   * @param startedAt - `performance.now()` when the evaluation started (read only when {@link AbTelemetry.timed}).
   * @param revision - the revision served now (`feature_flag.version`).
   */
  recordCached(
    results: AbResults,
    flags: ReadonlyMap<string, unknown>,
    userId: string,
    span: OtelSpan | undefined,
    slug: string,
    revision: number,
    startedAt: number,
  ): void {
    const duration = this.#duration;
    const keys = this.#keys;
    const recording = span?.isRecording() === true;
    if (duration === undefined && keys === undefined && !recording) return;
    const asked = Object.keys(results);
    keys?.record(asked.length, { [VANE_ATTRIBUTES.slug]: slug });
    duration?.record((performance.now() - startedAt) / 1000, { [VANE_ATTRIBUTES.slug]: slug });
    if (!recording) return;
    for (const key of asked) {
      const evaluation = flags.has(key)
        ? { key, userId, value: results[key] === true, reason: 'targeting_match' as const }
        : { key, userId, value: false, reason: 'error' as const, errorType: 'flag_not_found' };
      addFlagEvaluationEvent(span, evaluation, revision, this.recordUserId);
    }
  }

  /**
   * Observes one `evaluateAb()` call: `run` sends it.
   *
   * @param span - the span active when the app called (its events are added there).
   * @param revision - the revision served when the answer came (`feature_flag.version`).
   */
  observe(
    plan: AbPlan,
    userId: string,
    span: OtelSpan | undefined,
    slug: string,
    revision: () => number,
    run: () => Promise<AbResults>,
  ): Promise<AbResults> {
    const startedAt = performance.now();
    this.#keys?.record(plan.keys.length, { [VANE_ATTRIBUTES.slug]: slug });
    return run().then(
      (results) => {
        this.#duration?.record((performance.now() - startedAt) / 1000, { [VANE_ATTRIBUTES.slug]: slug });
        if (span?.isRecording() === true) {
          const sent = new Set(plan.batches.flat());
          const at = revision();
          for (const key of plan.keys) {
            const evaluation = sent.has(key)
              ? { key, userId, value: results[key] === true, reason: 'targeting_match' as const }
              : { key, userId, value: false, reason: 'error' as const, errorType: 'flag_not_found' };
            addFlagEvaluationEvent(span, evaluation, at, this.recordUserId);
          }
        }
        return results;
      },
      (error: unknown) => {
        const errorType = errorCodeOf(error);
        const attributes = { [VANE_ATTRIBUTES.slug]: slug, [VANE_ATTRIBUTES.errorType]: errorType };
        this.#duration?.record((performance.now() - startedAt) / 1000, attributes);
        this.#errors?.add(1, attributes);
        const at = revision();
        for (const key of plan.keys)
          addFlagEvaluationEvent(span, { key, userId, reason: 'error', errorType }, at, this.recordUserId);
        throw error;
      },
    );
  }
}
