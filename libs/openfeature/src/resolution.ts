/**
 * The resolution details the provider answers: a value with its reason, or
 * the caller's default with an error code. Every detail carries the snapshot
 * revision it was read from, and never a key or a secret.
 *
 * @packageDocumentation
 */
import {
  StandardResolutionReasons,
  type ErrorCode,
  type FlagMetadata,
  type ResolutionDetails,
  type ResolutionReason,
} from '@openfeature/server-sdk';
import type { FlagEvaluation, JsonValue } from '@vane/client';

/** A value read from the snapshot of `revision`. */
export function resolved<T>(value: T, reason: ResolutionReason, revision: number): ResolutionDetails<T> {
  return { value, reason, flagMetadata: { revision } };
}

/** The caller's default, with why (`errorCode`, `errorMessage`) and what the provider knows. */
export function failed<T>(
  defaultValue: T,
  errorCode: ErrorCode,
  errorMessage: string,
  flagMetadata: FlagMetadata,
): ResolutionDetails<T> {
  return { value: defaultValue, reason: StandardResolutionReasons.ERROR, errorCode, errorMessage, flagMetadata };
}

/** The stable `code` of a Vane error (`VANE_…`), or `undefined` for anything else. */
export function vaneCodeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** `VANE_CODE: message` of an error (client messages hold no key or secret by contract). */
export function describeError(error: unknown): string {
  const code = vaneCodeOf(error);
  const message = error instanceof Error ? error.message : 'unknown error';
  return code === undefined ? message : `${code}: ${message}`;
}

/**
 * A resolution as Vane's `feature_flag.evaluation` event reports it:
 * OpenFeature's reasons in OpenTelemetry's lower-case words, and the error
 * code (`FLAG_NOT_FOUND` → `flag_not_found`) as `error.type`. The value goes
 * to the client, whose telemetry records only booleans and numbers.
 */
export function flagEvaluationOf(key: string, details: ResolutionDetails<JsonValue>, userId?: string): FlagEvaluation {
  const base = { key, value: details.value, ...(userId !== undefined && { userId }) };
  if (details.errorCode !== undefined) return { ...base, reason: 'error', errorType: details.errorCode.toLowerCase() };
  return { ...base, reason: details.reason === StandardResolutionReasons.DISABLED ? 'disabled' : 'static' };
}
