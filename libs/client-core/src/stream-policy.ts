/**
 * When a client tries its stream again, and when it falls back to polling
 * (PROTOCOL §6, client stream rules). Pure: the caller passes the backoff's
 * step and the time, and starts the timers itself.
 *
 * @packageDocumentation
 */
import { backoffDelayMs, type BackoffStep } from './backoff.js';

/** The settings the decisions read (the clients' options of the same names). */
export interface StreamPolicySettings {
  /** Consecutive stream failures that start the polling fallback. */
  readonly streamErrorThreshold: number;
  /** How long the fallback polls before the stream is tried again, in milliseconds. */
  readonly streamCooldownMs: number;
  /** The poll interval, in milliseconds. */
  readonly ttlMs: number;
  /** The first backoff delay, in milliseconds. */
  readonly backoffMinMs: number;
  /** Randomness in [0, 1) for the jitter. */
  readonly random: () => number;
}

/** What a client does after its stream failed. */
export type StreamFailureDecision =
  /**
   * The service said when (`Retry-After`, a quarantine's `until`): neither
   * the stream nor the poll asks before `delayMs`; `connected` turns false.
   */
  | { readonly type: 'wait'; readonly delayMs: number }
  /**
   * Polling: the stream is tried again after the cooldown (`delayMs`).
   * `entered` is true when this failure starts the fallback: `connected`
   * turns false and the client polls at once.
   */
  | { readonly type: 'fallback'; readonly delayMs: number; readonly entered: boolean }
  /** Reconnect after `delayMs` (the backoff); nothing else changes. */
  | { readonly type: 'retry'; readonly delayMs: number };

/**
 * Decides what follows a stream failure.
 *
 * @param step - what the backoff's `fail()` returned for this failure.
 * @param waitMs - the wait the service asked for ({@link serviceWaitMs}), if the failure was a 429.
 * @param connected - whether the client reported `connected` until this failure.
 */
export function decideStreamFailure(
  step: BackoffStep,
  waitMs: number | undefined,
  connected: boolean,
  settings: StreamPolicySettings,
): StreamFailureDecision {
  if (waitMs !== undefined) return { type: 'wait', delayMs: Math.max(step.delayMs, waitMs) };
  const threshold = settings.streamErrorThreshold;
  if (step.failures < threshold) return { type: 'retry', delayMs: step.delayMs };
  return { type: 'fallback', delayMs: settings.streamCooldownMs, entered: connected || step.failures === threshold };
}

/**
 * The delay after a failed poll of a fallback (number `attempt`, 0-based):
 * the stream's backoff, capped by the TTL, so a client whose service
 * restarts is stale until the service answers again, not for a whole TTL.
 */
export function fallbackPollDelayMs(attempt: number, settings: StreamPolicySettings): number {
  return backoffDelayMs(attempt, {
    minMs: Math.min(settings.backoffMinMs, settings.ttlMs),
    maxMs: settings.ttlMs,
    random: settings.random,
  });
}

/**
 * The wait a 429 asks for: the longer of `Retry-After` and a quarantine's
 * `until`, capped by `maxRetryAfterMs`.
 *
 * @param retryAfterMs - the `Retry-After` delay, if any, in milliseconds.
 * @param untilMs - the quarantine's end, if any, in milliseconds since the epoch.
 */
export function serviceWaitMs(
  retryAfterMs: number | undefined,
  untilMs: number | undefined,
  nowMs: number,
  maxRetryAfterMs: number,
): number {
  return Math.min(Math.max(retryAfterMs ?? 0, (untilMs ?? nowMs) - nowMs), maxRetryAfterMs);
}
