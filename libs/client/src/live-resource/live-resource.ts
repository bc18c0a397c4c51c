/**
 * The live resource handle: the instance in service, borrowing, rebuilds
 * on change with retries, and disposal once borrowers have finished.
 *
 * @packageDocumentation
 */
import { Backoff } from '@vane/client-core';
import { LiveResourceBuildError, LiveResourceClosedError, type LiveResourceBuildStage } from '../errors.js';
import { ListenerSet } from '../store/listener-set.js';
import type { StateUpdate } from '../store/state-update.js';
import { redactValues, sanitizeCause } from '../util/redact.js';
import type { TimerHandle } from '../util/timers.js';
import { Generation } from './generation.js';
import { resolveDefinition, type LiveResourceDefinition, type ResolvedDefinition } from './live-resource-definition.js';
import type {
  LiveResourceEvent,
  LiveResourceListener,
  LiveResourceState,
  LiveResourceStatus,
} from './live-resource-events.js';
import type { LiveResourceHost, RebuildOutcome } from './live-resource-source.js';
import { readValues, type ReadValues } from './live-resource-values.js';

/** One line about an error for a log: name, code and message, with the values removed. */
function summary(error: Error): string {
  const code = (error as { code?: unknown }).code;
  return `${error.name}${typeof code === 'string' ? ` [${code}]` : ''}: ${error.message}`;
}

/**
 * A resource built from configs and secrets and kept current: when a value
 * it names changes, a new instance is built (`create`, then `ready`), swapped
 * in for new users, and the old one is disposed of once the operations that
 * borrowed it have finished (bounded by `drainTimeoutMs`). A failed build
 * keeps the instance in service, is reported (log, {@link LiveResource.status},
 * a `rebuild-failed` event) and is retried with backoff, and at once on the
 * next change. Changes that arrive during a build are built together, once,
 * from the latest values.
 *
 * Get one from `client.liveResource(definition)` (or `vane.liveResource()` in
 * Express, `provideLiveResource()` in Nest); it is disposed of by its own
 * {@link LiveResource.close} or the client's.
 *
 * @typeParam T - the instance (a pool, an SDK client…).
 */
export class LiveResource<T> {
  /** Name used in logs, events and errors. */
  readonly name: string;
  readonly #def: ResolvedDefinition<T>;
  readonly #host: LiveResourceHost;
  readonly #onClosed: () => void;
  readonly #events: ListenerSet<LiveResourceEvent>;
  readonly #backoff: Backoff;
  readonly #closer = new AbortController();
  readonly #draining = new Set<Promise<void>>();
  #current: Generation<T> | undefined;
  #generations = 0;
  #unsubscribe: (() => void) | undefined;
  #dirty = false;
  readonly #changedKeys = new Set<string>();
  #running = false;
  #loop: Promise<void> = Promise.resolve();
  #building = false;
  #failures = 0;
  #lastError: LiveResourceBuildError | null = null;
  #retryTimer: TimerHandle | undefined;
  #retryAtMs: number | null = null;
  #closing: Promise<void> | undefined;

  /**
   * @internal Use `client.liveResource(definition)`: it builds the first
   * instance and ties the resource to the client's lifetime.
   */
  constructor(host: LiveResourceHost, definition: LiveResourceDefinition<T>, onClosed: () => void = () => undefined) {
    this.#onClosed = onClosed;
    this.#host = host;
    this.#def = resolveDefinition(definition);
    this.name = this.#def.name;
    this.#events = new ListenerSet(
      host.logger,
      (e) => `live resource "${this.name}": event listener threw on ${e.type}`,
    );
    this.#backoff = new Backoff({
      minMs: this.#def.retryMinMs,
      maxMs: this.#def.retryMaxMs,
      random: host.random,
      healthyMs: Infinity,
    });
  }

  /**
   * Subscribes to the client's updates and builds the first instance.
   * Rejects with `LiveResourceBuildError` (the resource is then closed) or
   * `LiveResourceClosedError` (closed meanwhile).
   * @internal
   */
  async open(): Promise<this> {
    const watched = new Set([...this.#def.configs, ...this.#def.secrets, ...this.#def.secretFiles]);
    this.#unsubscribe = this.#host.source.onUpdate((update) => this.#updated(update, watched));
    try {
      const read = this.#read();
      const instance = await this.#attempt(read);
      this.#current = new Generation(
        instance,
        ++this.#generations,
        read.values.revision,
        read.fingerprint,
        this.#now(),
      );
    } catch (err) {
      await this.close();
      throw err;
    }
    this.#host.logger.info?.(`live resource "${this.name}": built at revision ${this.#current.revision}`);
    // A change that arrived during the first build is built now.
    if (this.#dirty) this.#kick();
    return this;
  }

  /**
   * The instance in service, synchronously. For an operation that must not
   * see its instance disposed of midway (a query, a transaction), prefer
   * {@link LiveResource.use}.
   *
   * @throws LiveResourceClosedError - after `close()`.
   */
  get current(): T {
    if (this.#closing !== undefined || this.#current === undefined) throw new LiveResourceClosedError(this.name);
    return this.#current.instance;
  }

  /**
   * Borrows the instance in service for the length of `fn`: a rebuild that
   * happens meanwhile swaps in a new instance for later callers, and this
   * one is disposed of only after `fn` has settled (or `drainTimeoutMs`).
   *
   * @returns what `fn` returns (awaited).
   * @throws LiveResourceClosedError - (a rejection) after `close()`.
   */
  async use<R>(fn: (instance: T) => R | Promise<R>): Promise<R> {
    const generation = this.#current;
    if (this.#closing !== undefined || generation === undefined) throw new LiveResourceClosedError(this.name);
    generation.borrow();
    try {
      return await fn(generation.instance);
    } finally {
      generation.release();
    }
  }

  /** Where the resource stands (see {@link LiveResourceStatus}). */
  get status(): LiveResourceStatus {
    const current = this.#current;
    let state: LiveResourceState = 'ready';
    if (this.#closing !== undefined) state = 'closed';
    else if (this.#building) state = 'rebuilding';
    else if (this.#failures > 0) state = 'failing';
    return {
      state,
      generation: current?.number ?? 0,
      revision: current?.revision ?? 0,
      builtAtMs: current?.builtAtMs ?? 0,
      failures: this.#failures,
      lastError: this.#lastError,
      retryAtMs: this.#retryAtMs,
      draining: this.#draining.size,
    };
  }

  /**
   * Subscribes to the resource's events: `rebuilt`, `rebuild-failed`,
   * `disposed`. Events carry key names, never values. Listeners are called
   * synchronously (`rebuilt` right after the swap, so `current` is the new
   * instance); what they throw is logged and ignored.
   *
   * @returns a function that unsubscribes.
   */
  onEvent(listener: LiveResourceListener): () => void {
    return this.#events.add(listener, 'onEvent');
  }

  /** True once {@link LiveResource.close} was called (by the app or by the client's close). */
  get closed(): boolean {
    return this.#closing !== undefined;
  }

  /**
   * Stops following changes and disposes of every instance: the one in
   * service and the old ones, each once its borrowers have finished (at
   * most `drainTimeoutMs`). A build still running is abandoned (its signal
   * is aborted) and what it builds is disposed of. Idempotent.
   */
  close(): Promise<void> {
    if (this.#closing !== undefined) return this.#closing;
    this.#unsubscribe?.();
    this.#clearRetry();
    this.#closer.abort();
    this.#closing = (async () => {
      await this.#loop;
      if (this.#current !== undefined) this.#retire(this.#current);
      await Promise.all([...this.#draining]);
      this.#events.clear();
      this.#onClosed();
    })();
    return this.#closing;
  }

  #now(): number {
    return this.#host.clock.now();
  }

  #updated(update: StateUpdate, watched: ReadonlySet<string>): void {
    const keys = update.changes.filter((c) => c.kind !== 'flag' && watched.has(c.key)).map((c) => c.key);
    if (keys.length === 0 || this.#closing !== undefined) return;
    for (const key of keys) this.#changedKeys.add(key);
    this.#dirty = true;
    // A change retries a failed build at once, whatever the backoff said.
    this.#clearRetry();
    // During the first build, open() kicks once it is done.
    if (this.#current !== undefined) this.#kick();
  }

  #kick(): void {
    if (this.#running || this.#closing !== undefined) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  /** Builds until the instance in service matches the latest values (or a build failed). Never rejects. */
  async #run(): Promise<void> {
    try {
      while (this.#dirty && this.#closing === undefined) {
        this.#dirty = false;
        const keys = [...this.#changedKeys];
        this.#changedKeys.clear();
        await this.#rebuild(keys);
      }
    } finally {
      this.#running = false;
    }
  }

  async #rebuild(keys: readonly string[]): Promise<void> {
    const observe = this.#host.observeRebuild;
    if (observe === undefined) await this.#build(keys);
    else await observe(() => this.#build(keys));
  }

  /** One rebuild: read, build, swap (or report the failure). Never rejects. */
  async #build(keys: readonly string[]): Promise<RebuildOutcome> {
    const startedAtMs = this.#now();
    this.#building = true;
    try {
      const read = this.#read();
      // Back to the values in service (e.g. a wrong value then the right one): nothing to build.
      if (read.fingerprint === this.#current!.fingerprint) {
        this.#succeeded();
        return { outcome: 'unchanged' };
      }
      const instance = await this.#attempt(read);
      if (this.#closing !== undefined) {
        this.#disposeLate(instance);
        return { outcome: 'abandoned' };
      }
      this.#swap(instance, read, keys, startedAtMs);
      return { outcome: 'success' };
    } catch (err) {
      if (this.#closing !== undefined) return { outcome: 'abandoned' };
      for (const key of keys) this.#changedKeys.add(key);
      const error = err as LiveResourceBuildError;
      this.#failed(error, keys);
      return { outcome: 'failure', stage: error.stage };
    } finally {
      this.#building = false;
    }
  }

  /** Values now; a missing or unreadable secret is a build failure at stage `values`. */
  #read(): ReadValues {
    try {
      return readValues(this.#host.source, this.#def as ResolvedDefinition<unknown>, this.#closer.signal);
    } catch (err) {
      throw this.#error('values', err, this.#host.source.revision, []);
    }
  }

  /**
   * `create` then `ready`, bounded by `buildTimeoutMs` and by `close()`.
   * An instance that fails `ready`, or arrives too late, is disposed of.
   */
  #attempt(read: ReadValues): Promise<T> {
    const { values, secretValues } = read;
    const controller = new AbortController();
    const onClose = (): void => controller.abort();
    this.#closer.signal.addEventListener('abort', onClose, { once: true });
    const work = (async (): Promise<T> => {
      let instance: T;
      try {
        instance = await this.#def.create({ ...values, signal: controller.signal });
      } catch (err) {
        throw this.#error('create', err, values.revision, secretValues);
      }
      try {
        await this.#def.ready?.(instance);
      } catch (err) {
        await this.#dispose(instance, 'the new instance (not ready)');
        throw this.#error('ready', err, values.revision, secretValues);
      }
      return instance;
    })();
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const timers = this.#host.timers;
      const timeoutMs = this.#def.buildTimeoutMs;
      const settle = (): boolean => {
        if (settled) return false;
        settled = true;
        if (timer !== undefined) timers.clearTimeout(timer);
        controller.signal.removeEventListener('abort', onAbort);
        this.#closer.signal.removeEventListener('abort', onClose);
        return true;
      };
      const abandon = (error: Error): void => {
        if (!settle()) return;
        controller.abort();
        reject(error);
        work.then(
          (late) => this.#disposeLate(late),
          () => undefined,
        );
      };
      const onAbort = (): void => abandon(new LiveResourceClosedError(this.name));
      const timer = Number.isFinite(timeoutMs)
        ? timers.setTimeout(
            () =>
              abandon(
                this.#error(
                  'timeout',
                  new Error(`create and ready took longer than buildTimeoutMs (${timeoutMs} ms)`),
                  values.revision,
                  secretValues,
                ),
              ),
            timeoutMs,
          )
        : undefined;
      controller.signal.addEventListener('abort', onAbort, { once: true });
      work.then(
        (instance) => {
          if (settle()) resolve(instance);
        },
        (err: unknown) => {
          if (settle()) reject(err as Error);
        },
      );
    });
  }

  #error(
    stage: LiveResourceBuildStage,
    err: unknown,
    revision: number,
    secretValues: readonly string[],
  ): LiveResourceBuildError {
    const cause = sanitizeCause(err, secretValues);
    const what = stage === 'values' ? 'reading its values' : stage === 'timeout' ? 'building' : stage;
    return new LiveResourceBuildError(
      redactValues(
        `live resource "${this.name}": ${what} failed at revision ${revision}: ${summary(cause)}`,
        secretValues,
      ),
      { resource: this.name, stage, revision, cause },
    );
  }

  #swap(instance: T, read: ReadValues, keys: readonly string[], startedAtMs: number): void {
    const old = this.#current!;
    const now = this.#now();
    this.#current = new Generation(instance, ++this.#generations, read.values.revision, read.fingerprint, now);
    this.#succeeded();
    this.#host.logger.info?.(
      `live resource "${this.name}": rebuilt (generation ${this.#current.number}, revision ${read.values.revision}, after ${keys.join(', ')} changed); the previous instance is disposed of once its borrowers finish`,
    );
    this.#events.emit({
      type: 'rebuilt',
      resource: this.name,
      generation: this.#current.number,
      revision: read.values.revision,
      keys,
      durationMs: now - startedAtMs,
    });
    this.#retire(old);
  }

  #succeeded(): void {
    this.#failures = 0;
    this.#lastError = null;
    this.#backoff.reset();
  }

  #failed(error: LiveResourceBuildError, keys: readonly string[]): void {
    this.#failures += 1;
    this.#lastError = error;
    const step = this.#backoff.fail(this.#now());
    // A newer change is already waiting: it is built at once, no timer.
    const retryInMs = this.#dirty ? 0 : step.delayMs;
    if (!this.#dirty) {
      this.#retryAtMs = this.#now() + retryInMs;
      this.#retryTimer = this.#host.timers.setTimeout(() => {
        this.#retryTimer = undefined;
        this.#retryAtMs = null;
        this.#dirty = true;
        this.#kick();
      }, retryInMs);
    }
    this.#host.logger.warn(
      `${error.message}; the instance in service (generation ${this.#current!.number}) stays; retry in ${retryInMs} ms (failure ${this.#failures})`,
    );
    this.#events.emit({
      type: 'rebuild-failed',
      resource: this.name,
      revision: error.revision,
      keys,
      error,
      failures: this.#failures,
      retryInMs,
    });
  }

  #clearRetry(): void {
    if (this.#retryTimer === undefined) return;
    this.#host.timers.clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#retryAtMs = null;
  }

  /** Disposes of an old instance once its borrowers have finished, at most `drainTimeoutMs` from now. */
  #retire(generation: Generation<T>): void {
    const done = (async () => {
      const drained = await generation.drained(this.#host.timers, this.#def.drainTimeoutMs);
      if (!drained)
        this.#host.logger.warn(
          `live resource "${this.name}": disposing of generation ${generation.number} with ${generation.borrowers} operation(s) still running after drainTimeoutMs (${this.#def.drainTimeoutMs} ms)`,
        );
      const error = await this.#dispose(generation.instance, `generation ${generation.number}`);
      this.#events.emit({
        type: 'disposed',
        resource: this.name,
        generation: generation.number,
        drained,
        ...(error === undefined ? {} : { error }),
      });
    })();
    this.#draining.add(done);
    void done.finally(() => this.#draining.delete(done));
  }

  /** An instance nobody will use (built after close or after its build timed out). */
  #disposeLate(instance: T): void {
    const done = this.#dispose(instance, 'an instance built too late').then(() => undefined);
    this.#draining.add(done);
    void done.finally(() => this.#draining.delete(done));
  }

  /** Calls `dispose`; a failure is logged (name and code only) and returned sanitised, never thrown. */
  async #dispose(instance: T, what: string): Promise<Error | undefined> {
    try {
      await this.#def.dispose(instance);
      return undefined;
    } catch (err) {
      const error = sanitizeCause(err);
      const code = (error as { code?: unknown }).code;
      this.#host.logger.warn(
        `live resource "${this.name}": dispose of ${what} failed: ${error.name}${typeof code === 'string' ? ` [${code}]` : ''}`,
      );
      return error;
    }
  }
}
