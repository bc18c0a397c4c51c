/**
 * Time under control: the clock and timers the client uses, injectable for tests.
 *
 * @packageDocumentation
 */
import type { Clock } from '@vane/common';

/** An opaque handle returned by {@link Timers.setTimeout}. */
export type TimerHandle = unknown;

/** The timer functions the client uses. Inject fakes to drive TTL and backoff in tests. */
export interface Timers {
  /** Calls `callback` once after `delayMs` milliseconds. */
  setTimeout(callback: () => void, delayMs: number): TimerHandle;
  /** Cancels a timer; a handle already fired or cleared is ignored. */
  clearTimeout(handle: TimerHandle): void;
}

export type { Clock };

/** Longest delay Node's `setTimeout` honours, in milliseconds. */
const MAX_NODE_TIMER_MS = 2 ** 31 - 1;

/**
 * Node's timers, unref'd: the client's own timers never keep a process alive
 * (an open stream does, until `close()`).
 */
export const systemTimers: Timers = {
  setTimeout(callback, delayMs) {
    // Node fires a delay above 2^31-1 ms after 1 ms: a huge timeoutMs or ttlMs would mean "at once".
    const handle = setTimeout(callback, Math.min(delayMs, MAX_NODE_TIMER_MS));
    handle.unref();
    return handle;
  },
  clearTimeout(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};

/** `Date.now()`. */
export const systemClock: Clock = { now: () => Date.now() };
