/**
 * Time under control: the clock and timers the client uses, injectable for tests.
 *
 * @packageDocumentation
 */

/** An opaque handle returned by {@link Timers.setTimeout}. */
export type TimerHandle = unknown;

/** The timer functions the client uses. Inject fakes to drive TTL and backoff in tests. */
export interface Timers {
  /** Calls `callback` once after `delayMs` milliseconds. */
  setTimeout(callback: () => void, delayMs: number): TimerHandle;
  /** Cancels a timer; a handle already fired or cleared is ignored. */
  clearTimeout(handle: TimerHandle): void;
}

/** A clock in milliseconds since the epoch. */
export interface Clock {
  /** Current time in milliseconds since the epoch. */
  now(): number;
}

/**
 * Node's timers, unref'd: the client's own timers never keep a process alive
 * (an open stream does, until `close()`).
 */
export const systemTimers: Timers = {
  setTimeout(callback, delayMs) {
    const handle = setTimeout(callback, delayMs);
    handle.unref();
    return handle;
  },
  clearTimeout(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};

/** `Date.now()`. */
export const systemClock: Clock = { now: () => Date.now() };
