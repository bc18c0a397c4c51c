import type { Clock } from '@vane/common';

/** A cancellable timer started through a {@link TimerClock}. */
export interface CancellableTimer {
  /** Stops the timer; calling it again does nothing. */
  cancel(): void;
}

/**
 * Time as the local server sees it: `@vane/common`'s {@link Clock}
 * (`now()`) that also starts timers. Flag schedules (`starts_at`/`ends_at`),
 * quarantine and rate limits read it, so tests can move time by hand with
 * {@link ManualClock} instead of waiting.
 */
export interface TimerClock extends Clock {
  /** Calls `callback` once, `delayMs` from now. */
  setTimer(callback: () => void, delayMs: number): CancellableTimer;
}

// setTimeout overflows (and fires at once) past 2^31-1 ms, about 24.8 days.
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** The real clock: `Date.now()` and `setTimeout`, with delays beyond 24.8 days chained safely. */
export const systemClock: TimerClock = {
  now: () => Date.now(),
  setTimer(callback, delayMs) {
    let timer: NodeJS.Timeout | undefined;
    const due = Date.now() + Math.max(0, delayMs);
    const arm = (): void => {
      const remaining = due - Date.now();
      if (remaining <= 0) {
        timer = undefined;
        callback();
        return;
      }
      timer = setTimeout(arm, Math.min(remaining, MAX_TIMER_DELAY_MS));
    };
    timer = setTimeout(arm, Math.min(Math.max(0, delayMs), MAX_TIMER_DELAY_MS));
    return {
      cancel: () => {
        if (timer) clearTimeout(timer);
        timer = undefined;
      },
    };
  },
};

interface ManualTimer {
  due: number;
  seq: number;
  callback: () => void;
  cancelled: boolean;
}

/**
 * A clock that only moves when told to. Timers fire, in due order, inside
 * {@link ManualClock.advance} or {@link ManualClock.set}.
 *
 * @example
 * const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
 * const server = await startVaneServer({ seed, clock });
 * clock.advance(60_000); // a flag whose starts_at was a minute away turns active now
 */
export class ManualClock implements TimerClock {
  private current: number;
  private seq = 0;
  private timers: ManualTimer[] = [];

  /** @param startMs the initial time in epoch milliseconds (default: the real time now). */
  constructor(startMs: number = Date.now()) {
    this.current = startMs;
  }

  /** The clock's time in epoch milliseconds. */
  now(): number {
    return this.current;
  }

  /** Registers a timer that fires when the clock reaches `now() + delayMs`. */
  setTimer(callback: () => void, delayMs: number): CancellableTimer {
    const timer: ManualTimer = {
      due: this.current + Math.max(0, delayMs),
      seq: this.seq++,
      callback,
      cancelled: false,
    };
    this.timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way. */
  advance(ms: number): void {
    this.set(this.current + ms);
  }

  /** Moves time to `epochMs` (never backwards), firing every timer that falls due on the way. */
  set(epochMs: number): void {
    if (epochMs < this.current) throw new RangeError('ManualClock cannot go backwards');
    for (;;) {
      this.timers = this.timers.filter((t) => !t.cancelled);
      const next = this.timers.filter((t) => t.due <= epochMs).sort((a, b) => a.due - b.due || a.seq - b.seq)[0];
      if (!next) break;
      this.current = Math.max(this.current, next.due);
      next.cancelled = true;
      next.callback();
    }
    this.current = epochMs;
  }

  /** How many timers are waiting. */
  get pendingTimers(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }
}
