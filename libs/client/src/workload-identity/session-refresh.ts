/**
 * When to refresh a workload-identity session: pure, on numbers only.
 *
 * @packageDocumentation
 */

/** Longest delay a Node timer takes without firing at once (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Delay until a session is refreshed, in milliseconds: `marginMs` before it
 * expires, or halfway through what is left when less than twice the margin
 * is left; `0` once it has expired.
 *
 * @param expiresAtMs - the session's `expires_at`, in epoch milliseconds.
 * @param nowMs - the current time, in epoch milliseconds.
 * @param marginMs - the refresh margin, in milliseconds.
 */
export function refreshDelayMs(expiresAtMs: number, nowMs: number, marginMs: number): number {
  const left = expiresAtMs - nowMs;
  if (!(left > 0)) return 0;
  const margin = Math.min(marginMs, left / 2);
  return Math.min(MAX_TIMER_MS, Math.floor(left - margin));
}

/**
 * Delay before another try after a failed background refresh, in
 * milliseconds: `retryMs`, but never past the expiry.
 */
export function refreshRetryDelayMs(expiresAtMs: number, nowMs: number, retryMs: number): number {
  return Math.max(0, Math.min(retryMs, expiresAtMs - nowMs));
}
