import type { Clock, TimerHandle, Timers } from '../../src/util/timers.js';

interface Entry {
  readonly id: number;
  readonly at: number;
  readonly callback: () => void;
}

/** Hand-driven clock and timers: nothing fires until the test advances time. */
export class ManualTimers implements Timers, Clock {
  #now: number;
  #seq = 0;
  readonly #entries = new Map<number, Entry>();

  constructor(start = Date.parse('2026-11-22T10:00:00Z')) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, delayMs: number): TimerHandle {
    const id = ++this.#seq;
    this.#entries.set(id, { id, at: this.#now + Math.max(0, delayMs), callback });
    return id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.#entries.delete(handle as number);
  }

  /** Delays (from now) of the pending timers, sorted. */
  pendingDelays(): number[] {
    return [...this.#entries.values()].map((e) => e.at - this.#now).sort((a, b) => a - b);
  }

  get pendingCount(): number {
    return this.#entries.size;
  }

  /** Moves time forward by `ms`, firing due timers in order; yields to I/O between fires. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    for (;;) {
      const next = [...this.#entries.values()]
        .filter((e) => e.at <= target)
        .sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!next) break;
      this.#entries.delete(next.id);
      this.#now = next.at;
      next.callback();
      await flush();
    }
    this.#now = target;
    await flush();
  }
}

/** Lets pending promise callbacks and immediate I/O callbacks run. */
export async function flush(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
