/**
 * Same-turn batching of A/B evaluations: every flag asked for the same
 * context during one turn of the event loop goes out in one `evaluate-ab`
 * call (the client splits past 200 keys, as the service requires).
 *
 * @packageDocumentation
 */
import type { AbContext, AbResults } from '@vane/client';

/** Sends one evaluation: the client's `evaluateAb`. */
export type AbEvaluate = (keys: readonly string[], context: AbContext) => Promise<AbResults>;

interface Waiter {
  readonly key: string;
  readonly resolve: (value: boolean) => void;
  readonly reject: (error: unknown) => void;
}

interface PendingBatch {
  readonly context: AbContext;
  readonly keys: Set<string>;
  readonly waiters: Waiter[];
}

/** Collects evaluations until the end of the current event-loop turn, then sends one call per context. */
export class AbBatcher {
  readonly #evaluate: AbEvaluate;
  #pending = new Map<string, PendingBatch>();
  #flushTimer: NodeJS.Immediate | undefined;

  /** @param evaluate - sends one evaluation (the client's `evaluateAb`). */
  constructor(evaluate: AbEvaluate) {
    this.#evaluate = evaluate;
  }

  /**
   * The value of `key` for `context`, from the call that carries every key
   * asked for the same `batchKey` in this turn.
   */
  evaluate(key: string, context: AbContext, batchKey: string): Promise<boolean> {
    let batch = this.#pending.get(batchKey);
    if (batch === undefined) {
      batch = { context, keys: new Set(), waiters: [] };
      this.#pending.set(batchKey, batch);
    }
    batch.keys.add(key);
    // setImmediate, not a microtask: OpenFeature runs hooks between the call and the provider,
    // so evaluations started together reach us a varying number of microtasks apart.
    this.#flushTimer ??= setImmediate(() => this.#flush());
    const waiters = batch.waiters;
    return new Promise<boolean>((resolve, reject) => waiters.push({ key, resolve, reject }));
  }

  /** Fails every evaluation not yet sent with `error` and cancels the pending flush. */
  cancel(error: unknown): void {
    if (this.#flushTimer !== undefined) clearImmediate(this.#flushTimer);
    this.#flushTimer = undefined;
    const pending = this.#pending;
    this.#pending = new Map();
    for (const batch of pending.values()) for (const waiter of batch.waiters) waiter.reject(error);
  }

  #flush(): void {
    this.#flushTimer = undefined;
    const pending = this.#pending;
    this.#pending = new Map();
    for (const batch of pending.values()) void this.#send(batch);
  }

  async #send(batch: PendingBatch): Promise<void> {
    try {
      const results = await this.#evaluate([...batch.keys], batch.context);
      for (const waiter of batch.waiters) waiter.resolve(results[waiter.key] === true);
    } catch (error) {
      for (const waiter of batch.waiters) waiter.reject(error);
    }
  }
}
