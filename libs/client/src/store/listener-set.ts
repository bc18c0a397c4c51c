/**
 * One way to call the app's listeners (value changes and status changes
 * alike): synchronously, in subscription order, each one isolated.
 *
 * @packageDocumentation
 */
import { InvalidArgumentError } from '../errors.js';
import type { VaneLogger } from '../util/logger.js';
import { redactText } from '../util/redact.js';

/**
 * A set of listeners of one kind of event. A listener that throws, or an
 * async listener whose promise rejects, is reported to the logger and never
 * stops the others nor reaches the app as an unhandled rejection (which would
 * crash it from the client's background work).
 */
export class ListenerSet<T> {
  readonly #listeners = new Set<(event: T) => unknown>();

  /**
   * @param logger - where failures of listeners are reported.
   * @param failure - the start of that report, naming the listener kind and the event (never a value),
   *   e.g. `change listener threw on config "db.host"`.
   */
  constructor(
    private readonly logger: VaneLogger,
    private readonly failure: (event: T) => string,
  ) {}

  /** Number of subscribed listeners. */
  get size(): number {
    return this.#listeners.size;
  }

  /**
   * Subscribes `listener`; the same function subscribed twice is called twice.
   *
   * @param method - the public method's name, for the argument error.
   * @returns a function that unsubscribes (idempotent).
   * @throws InvalidArgumentError - when `listener` is not a function.
   */
  add(listener: (event: T) => unknown, method: string): () => void {
    if (typeof listener !== 'function') throw new InvalidArgumentError(`${method}: listener must be a function`);
    const entry = (event: T): unknown => listener(event);
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  }

  /** Calls every listener with `event`. Never throws. */
  emit(event: T): void {
    for (const listener of this.#listeners) callIsolated(listener, event, this.logger, this.failure);
  }

  /** Unsubscribes everyone. */
  clear(): void {
    this.#listeners.clear();
  }
}

/**
 * Calls one listener so that nothing it does reaches the caller: a throw, or
 * a rejection of the promise an async listener returns, is reported to
 * `logger` as `failure(event)` plus the error's name (never its message,
 * which may hold a value).
 */
export function callIsolated<T>(
  listener: (event: T) => unknown,
  event: T,
  logger: VaneLogger,
  failure: (event: T) => string,
): void {
  const report = (err: unknown): void =>
    logger.warn(`${failure(event)}: ${err instanceof Error ? redactText(err.name) : typeof err}`);
  try {
    const result = listener(event);
    if (typeof result === 'object' && result !== null && typeof (result as PromiseLike<unknown>).then === 'function')
      (result as PromiseLike<unknown>).then(undefined, report);
  } catch (err) {
    report(err);
  }
}
