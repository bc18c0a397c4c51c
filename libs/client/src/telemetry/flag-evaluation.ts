/**
 * Flag decisions as OpenTelemetry `feature_flag.evaluation` events on the
 * active span, with OpenTelemetry's feature-flag attributes. The one place
 * that writes them: the Nest guard, Express `requireFlag`, the OpenFeature
 * provider and `evaluateAb()` all come here.
 *
 * @packageDocumentation
 */
import type { JsonValue } from '@vane/client-core';
import type { OtelAttributes, OtelSpan } from './otel-api.js';

/**
 * Why a flag has its value, in OpenTelemetry's `feature_flag.result.reason` words:
 * `static` (a flag that is on, a config's value), `disabled` (defined and off), `targeting_match`
 * (decided per user by the A/B add-on), `error` (not defined, or the A/B call failed).
 */
export type FlagEvaluationReason = 'static' | 'disabled' | 'targeting_match' | 'error';

/** One flag decision, as an adapter reports it. */
export interface FlagEvaluation {
  /** The flag's key. */
  readonly key: string;
  /**
   * The value the decision used: a flag's boolean, or a config's JSON value
   * (OpenFeature's string, number and object evaluations); absent when the
   * evaluation failed without one. Recorded in `feature_flag.result.value`
   * only when it is a boolean or a finite number.
   */
  readonly value?: JsonValue;
  /** See {@link FlagEvaluationReason}. */
  readonly reason: FlagEvaluationReason;
  /** With reason `error`: `flag_not_found`, or the client's error code (`VANE_TRANSPORT`, …). */
  readonly errorType?: string;
  /** The user the flag was evaluated for; recorded only with `telemetry: { recordUserId: true }`. */
  readonly userId?: string;
}

/** The name of the event, as OpenTelemetry's conventions give it. */
export const FLAG_EVALUATION_EVENT = 'feature_flag.evaluation';
/** `feature_flag.provider.name` of every event. */
export const PROVIDER_NAME = 'vane';

/**
 * Adds one `feature_flag.evaluation` event to `span`, when it records.
 *
 * @param revision - the snapshot revision the decision came from (`feature_flag.version`).
 * @param recordUserId - whether `userId` may go in `feature_flag.context.id`.
 */
export function addFlagEvaluationEvent(
  span: OtelSpan | undefined,
  evaluation: FlagEvaluation,
  revision: number,
  recordUserId: boolean,
): void {
  if (span === undefined || !span.isRecording()) return;
  const attributes: OtelAttributes = {
    'feature_flag.key': evaluation.key,
    'feature_flag.provider.name': PROVIDER_NAME,
    'feature_flag.result.reason': evaluation.reason,
    'feature_flag.version': String(revision),
  };
  const value = recordableValue(evaluation.value);
  if (value !== undefined) attributes['feature_flag.result.value'] = value;
  if (evaluation.errorType !== undefined) attributes['error.type'] = evaluation.errorType;
  if (recordUserId && typeof evaluation.userId === 'string' && evaluation.userId !== '')
    attributes['feature_flag.context.id'] = evaluation.userId;
  span.addEvent(FLAG_EVALUATION_EVENT, attributes);
}

/**
 * What of a value `feature_flag.result.value` may hold: a boolean or a
 * finite number. A string is left out (a config's text can hold anything: a
 * URL with credentials, personal data, a page of text), and so are objects,
 * arrays and null (a span attribute holds primitives only; OpenTelemetry's
 * conventions leave it to the instrumentation to limit this attribute). The
 * key and `feature_flag.version` name the value exactly.
 */
export function recordableValue(value: JsonValue | undefined): boolean | number | undefined {
  if (typeof value === 'boolean') return value;
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The decision a plain (non-A/B) flag read makes, from the snapshot's state of the flag. */
export function plainFlagEvaluation(
  key: string,
  state: { readonly defined: boolean; readonly active: boolean },
  userId?: string,
): FlagEvaluation {
  const base = userId === undefined ? { key } : { key, userId };
  if (!state.defined) return { ...base, value: false, reason: 'error', errorType: 'flag_not_found' };
  return { ...base, value: state.active, reason: state.active ? 'static' : 'disabled' };
}
