/**
 * Pure reconnect delays: exponential with jitter. Starts no timer and reads
 * no clock of its own; randomness is injected.
 *
 * @packageDocumentation
 */

/** Settings of {@link backoffDelayMs}. */
export interface BackoffSettings {
  /** Delay before the first retry, in milliseconds. */
  readonly minMs: number;
  /** Upper bound of any delay, in milliseconds. */
  readonly maxMs: number;
  /** Source of randomness in [0, 1). */
  readonly random: () => number;
}

/**
 * Delay before retry number `attempt` (0 for the first retry): the base
 * doubles from `minMs` up to `maxMs`, and up to half of it is taken off at
 * random, so a fleet of clients that lost the same server does not come back
 * in step. The result is always in `[base / 2, base]`.
 *
 * @param attempt - consecutive failures so far, minus one (0-based).
 * @returns the delay in milliseconds (an integer).
 */
export function backoffDelayMs(attempt: number, settings: BackoffSettings): number {
  const exponent = Math.min(Math.max(0, Math.floor(attempt)), 31);
  const base = Math.min(settings.maxMs, settings.minMs * 2 ** exponent);
  const r = Math.min(Math.max(settings.random(), 0), 1);
  return Math.round(base - r * 0.5 * base);
}

/**
 * Parses a `Retry-After` header (delay in seconds, or an HTTP date).
 *
 * @param value - the header value, if any.
 * @param nowMs - the current time, for the HTTP-date form.
 * @returns the delay in milliseconds, or `undefined` when absent or unreadable.
 */
export function parseRetryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}
