/**
 * Bounded waits for tests: on a promise, on a client's events, and (for
 * things that emit none) on a condition. Every wait has a limit and fails
 * with a message naming what it waited for; none leaves a timer behind.
 *
 * @packageDocumentation
 */
import { VaneServerError } from '../errors/vane-server-error.js';

/** The limit of every wait unless `timeoutMs` says otherwise, in milliseconds. */
export const DEFAULT_WAIT_MS = 5_000;

/** Options of every wait. */
export interface WaitOptions {
  /** How long to wait before failing, in milliseconds. @default {@link DEFAULT_WAIT_MS} */
  timeoutMs?: number;
}

/** A wait ran past its limit. `message` names what was awaited and the limit. */
export class WaitTimeoutError extends VaneServerError {
  readonly code = 'VANE_LOCAL_WAIT_TIMEOUT' as const;

  /**
   * @param what - what was awaited, for the message.
   * @param timeoutMs - the limit that passed, in milliseconds.
   * @param detail - what was seen instead, appended to the message.
   */
  constructor(
    readonly what: string,
    readonly timeoutMs: number,
    detail?: string,
  ) {
    super(`timed out after ${timeoutMs} ms waiting for ${what}${detail === undefined ? '' : `; ${detail}`}`);
  }
}

function limitOf(options: WaitOptions | undefined): number {
  return options?.timeoutMs ?? DEFAULT_WAIT_MS;
}

/**
 * Settles like `promise`, or rejects with a {@link WaitTimeoutError} naming
 * `what` once `timeoutMs` has passed.
 */
export async function withTimeout<T>(promise: Promise<T>, what: string, options?: WaitOptions): Promise<T> {
  const timeoutMs = limitOf(options);
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new WaitTimeoutError(what, timeoutMs)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Options of {@link until}. */
export interface UntilOptions extends WaitOptions {
  /** Pause between two checks, in milliseconds. @default 10 */
  intervalMs?: number;
}

/**
 * Resolves once `condition()` holds, checking it every `intervalMs` of real
 * time. For what emits no event (a log line, a request count, a file); when
 * the thing emits events, wait on them instead ({@link waitForRevision},
 * {@link waitForStatus}, {@link waitForChange}).
 *
 * @param what - what is awaited, for the failure message.
 */
export async function until(
  condition: () => boolean | Promise<boolean>,
  what: string,
  options?: UntilOptions,
): Promise<void> {
  const timeoutMs = limitOf(options);
  const intervalMs = options?.intervalMs ?? 10;
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new WaitTimeoutError(what, timeoutMs);
    await new Promise<void>((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * The subscription every wait on events uses: `subscribe` registers a
 * listener and returns its unsubscribe; the wait resolves with the first
 * value `accept` maps to something other than `undefined`.
 */
function firstAccepted<E, R>(
  subscribe: (listener: (event: E) => void) => () => void,
  accept: (event: E) => R | undefined,
  what: string,
  options: WaitOptions | undefined,
): Promise<R> {
  const timeoutMs = limitOf(options);
  return new Promise<R>((resolve, reject) => {
    let done = false;
    // Set once subscribe() returns; a listener called during subscribe() finishes without it.
    const subscription: { off?: () => void } = {};
    const finish = (): void => {
      done = true;
      clearTimeout(timer);
      subscription.off?.();
    };
    const timer = setTimeout(() => {
      finish();
      reject(new WaitTimeoutError(what, timeoutMs));
    }, timeoutMs);
    subscription.off = subscribe((event) => {
      if (done) return;
      let result: R | undefined;
      try {
        result = accept(event);
      } catch (err) {
        finish();
        reject(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      if (result === undefined) return;
      finish();
      resolve(result);
    });
    if (done) subscription.off();
  });
}

/** Options of the waits that take a description. */
export interface DescribedWaitOptions extends WaitOptions {
  /** What is awaited, for the failure message. @default the predicate's source text */
  what?: string;
}

/** `options.what`, else `<kind> matching <the predicate's source>`. */
function awaited(
  kind: string,
  predicate: (...args: never[]) => unknown,
  options: DescribedWaitOptions | undefined,
): string {
  return options?.what ?? `${kind} matching ${predicate.toString().replace(/\s+/g, ' ').slice(0, 120)}`;
}

/**
 * Resolves with the first value a subscription hands its listener that
 * `match` accepts (the first one without `match`), then unsubscribes. For
 * any `on…(listener)` that returns its unsubscribe (e.g. `client.onInvalid`).
 *
 * @example
 * ```ts
 * const invalid = waitForEvent((cb) => client.onInvalid(cb), (i) => i.key === 'db.pool.max');
 * ```
 */
export function waitForEvent<T>(
  subscribe: (listener: (value: T) => void) => () => void,
  match: (value: T) => boolean = () => true,
  options?: DescribedWaitOptions,
): Promise<T> {
  return firstAccepted<T, T>(
    subscribe,
    (value) => (match(value) ? value : undefined),
    awaited('an event', match, options),
    options,
  );
}

/** What emits per-value change events: a `VaneClient` (its `onChange`). */
export interface ChangeEventSource<E> {
  onChange(listener: (event: E) => void): () => void;
}

/**
 * Resolves with the first change event of `client` that `match` accepts.
 * Subscribe before making the change:
 *
 * @example
 * ```ts
 * const changed = waitForChange(client, (e) => e.key === 'db.pool.max');
 * server.admin.setConfig('shop', 'db.pool.max', 30);
 * expect((await changed).newValue).toBe(30);
 * ```
 */
export function waitForChange<E>(
  client: ChangeEventSource<E>,
  match: (event: E) => boolean,
  options?: DescribedWaitOptions,
): Promise<E> {
  return firstAccepted<E, E>(
    (listener) => client.onChange(listener),
    (event) => (match(event) ? event : undefined),
    awaited('a change', match, options),
    options,
  );
}

/** What emits one update per installed revision: a `VaneClient` (its `revision` and `onUpdate`). */
export interface UpdateEventSource<U extends { readonly revision: number }> {
  readonly revision: number;
  onUpdate(listener: (update: U) => void): () => void;
}

/** Resolves with the first update of `client` that `match` accepts. Subscribe before making the change. */
export function waitForUpdate<U extends { readonly revision: number }>(
  client: UpdateEventSource<U>,
  match: (update: U) => boolean,
  options?: DescribedWaitOptions,
): Promise<U> {
  return firstAccepted<U, U>(
    (listener) => client.onUpdate(listener),
    (update) => (match(update) ? update : undefined),
    awaited('an update', match, options),
    options,
  );
}

/**
 * Resolves once `client` serves `revision` or a later one: at once when it
 * already does, else on the update that installs it. Resolves with the
 * revision served then. It resolves as the snapshot is installed: what the
 * client does once the sync that brought it ends (a status change, say)
 * may follow; wait for that with {@link waitForStatus}.
 *
 * @example
 * ```ts
 * const revision = server.admin.setFlag('shop', 'beta', { is_enabled: true });
 * await waitForRevision(client, revision);
 * ```
 */
export function waitForRevision(
  client: UpdateEventSource<{ readonly revision: number }>,
  revision: number,
  options?: WaitOptions,
): Promise<number> {
  if (client.revision >= revision) return Promise.resolve(client.revision);
  return firstAccepted<{ readonly revision: number }, number>(
    (listener) => client.onUpdate(listener),
    (update) => (update.revision >= revision ? update.revision : undefined),
    `revision ${revision} (the client served ${client.revision} when the wait began)`,
    options,
  );
}

/** What reports a status and its changes: a `VaneClient` (its `status` and `onStatusChange`). */
export interface StatusEventSource<S> {
  readonly status: S;
  onStatusChange(listener: (status: S) => void): () => void;
}

/**
 * Resolves with the client's status once `match` accepts it: at once when
 * the current status does, else on the status change that does.
 *
 * @example
 * ```ts
 * await waitForStatus(client, (s) => s.connected, { what: 'the stream to connect' });
 * ```
 */
export function waitForStatus<S>(
  client: StatusEventSource<S>,
  match: (status: S) => boolean,
  options?: DescribedWaitOptions,
): Promise<S> {
  if (match(client.status)) return Promise.resolve(client.status);
  return firstAccepted<S, S>(
    (listener) => client.onStatusChange(listener),
    (status) => (match(status) ? status : undefined),
    awaited('a status', match, options),
    options,
  );
}
