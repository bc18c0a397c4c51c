/**
 * One built instance of a live resource, with the operations borrowing it.
 *
 * @packageDocumentation
 */
import type { Timers } from '../util/timers.js';

/**
 * An instance and its borrowers: `use()` counts in and out, so that an
 * instance swapped out is disposed of only once the operations that
 * borrowed it have finished (or the drain time has passed). @internal
 */
export class Generation<T> {
  #borrowers = 0;
  #idle: (() => void) | undefined;

  /**
   * @param instance - what `create` built.
   * @param number - 1 for the instance built at startup, then one more per rebuild.
   * @param revision - snapshot revision of the values it was built from.
   * @param fingerprint - digest of those values.
   * @param builtAtMs - when it went into service, on the client's clock.
   */
  constructor(
    readonly instance: T,
    readonly number: number,
    readonly revision: number,
    readonly fingerprint: string,
    readonly builtAtMs: number,
  ) {}

  /** Operations running on this instance now. */
  get borrowers(): number {
    return this.#borrowers;
  }

  /** An operation starts on this instance. */
  borrow(): void {
    this.#borrowers += 1;
  }

  /** An operation on this instance has finished. */
  release(): void {
    this.#borrowers -= 1;
    if (this.#borrowers === 0) this.#idle?.();
  }

  /**
   * Waits for the borrowers to finish, at most `timeoutMs` on `timers`.
   * @returns true when they all finished, false when the time ran out first.
   */
  drained(timers: Timers, timeoutMs: number): Promise<boolean> {
    if (this.#borrowers === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = timers.setTimeout(() => {
        this.#idle = undefined;
        resolve(false);
      }, timeoutMs);
      this.#idle = () => {
        this.#idle = undefined;
        timers.clearTimeout(timer);
        resolve(true);
      };
    });
  }
}
