/**
 * The A/B evaluation of one request, shared by the framework adapters.
 *
 * @packageDocumentation
 */
import type { AbContext, AbResults } from '@vane/client-core';
import { ClientClosedError, InvalidArgumentError } from '../errors.js';
import type { VaneLogger } from '../util/logger.js';
import { redactText } from '../util/redact.js';

/**
 * What a {@link RequestAbEvaluation} needs. One object can serve every
 * request of an app: the functions get the request (`R`) the evaluation was
 * made for.
 *
 * @typeParam R - what the adapter calls a request (Express's `Request`…); `void` when the functions need none.
 */
export interface RequestAbEvaluationOptions<R = void> {
  /** Sends one evaluation: normally `(keys, user) => client.evaluateAb(keys, user)`. */
  evaluate(keys: readonly string[], context: AbContext): Promise<AbResults>;
  /**
   * The answers of `keys` for `context` known now without a call, or
   * `undefined`: normally `(keys, user) => client.evaluateAbCached(keys, user)`.
   * When it answers, a request whose answers are all cached is decided
   * synchronously (no promise); without it every evaluation goes through
   * `evaluate`. What it throws is ignored (`evaluate` then reports it).
   * The object it returns must be a new one (as `evaluateAbCached` gives):
   * the evaluation keeps it, and adds to it.
   */
  cached?(keys: readonly string[], context: AbContext): AbResults | undefined;
  /**
   * The request's user, asked at most once per request. `null` or
   * `undefined` means anonymous: every A/B flag is off and nothing is sent.
   * An exception it throws (or a rejection) fails closed like a failed call:
   * the request is anonymous, and one warning names the error's code (the same
   * rule in every adapter). Only Vane's own `InvalidArgumentError` (no
   * `abContext` configured) rejects.
   */
  context(request: R): AbContext | null | undefined | PromiseLike<AbContext | null | undefined>;
  /** Keys the request is known to need (e.g. its route's A/B guards): sent with the first call. */
  plannedKeys?(request: R): readonly string[];
  /**
   * Where a failed evaluation is reported (one warning per failed call): a
   * logger, or a function giving the request's own (asked only to warn).
   */
  logger: VaneLogger | ((request: R) => VaneLogger);
}

const noop = (): void => undefined;

const NO_KEYS: readonly string[] = Object.freeze([]);

function includesAll(keys: readonly string[], others: readonly string[]): boolean {
  for (const key of others) if (!keys.includes(key)) return false;
  return true;
}

/** `#context` before the context function was asked. */
const NOT_ASKED: unique symbol = Symbol('not asked');
/** What {@link RequestAbEvaluation} reads of the user when it is not known synchronously. */
const NOT_READY: unique symbol = Symbol('not ready');

type Context = AbContext | null | undefined;

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function codeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? ` (${code})` : '';
}

/**
 * What a request's reader and guards use of its {@link RequestAbEvaluation},
 * whatever the request type of its options.
 */
export interface RequestAbMemo {
  /** {@link RequestAbEvaluation.evaluate} */
  evaluate(keys: readonly string[]): Promise<AbResults>;
  /** {@link RequestAbEvaluation.now} */
  now(keys: readonly string[]): AbResults | Promise<AbResults>;
  /** {@link RequestAbEvaluation.offKey} */
  offKey(keys: readonly string[]): string | null | Promise<string | null>;
}

/**
 * One request's A/B flags: every key is evaluated at most once; a call
 * carries the keys asked plus the planned keys not evaluated yet, so the
 * guards and parameters of a route cost one `evaluate-ab` call; concurrent
 * asks share it. A call that fails (add-on off, rate limit, network, a
 * context the client refuses) **fails closed**: its keys are `false`, and one
 * warning names them and the error code. Only a closed client rejects.
 *
 * Answers known synchronously (all cached, see
 * {@link RequestAbEvaluationOptions.cached}; evaluated earlier in the
 * request; or an anonymous request) are given synchronously by
 * {@link RequestAbEvaluation.offKey} and {@link RequestAbEvaluation.now}:
 * what a guard needs to let a returning user through without a promise.
 *
 * @typeParam R - the request type of the options.
 */
export class RequestAbEvaluation<R = void> implements RequestAbMemo {
  readonly #options: RequestAbEvaluationOptions<R>;
  #request: R;
  /** Answers known: key → boolean (no prototype). */
  #settled: Record<string, boolean> | undefined;
  /** Keys whose call is in flight: the call's end (a rejection stays, for the keys of a closed client). */
  #pending: Map<string, Promise<void>> | undefined;
  /** The user: not asked yet, known, or on its way. */
  #context: Context | Promise<Context> | typeof NOT_ASKED = NOT_ASKED;

  /**
   * @param options - how to send, who the user is, what is planned, where to warn.
   * @param request - the request, handed to the functions of `options`. An
   *   adapter that keeps the memo in a `WeakMap` keyed by the request leaves it
   *   out and hands the request to each call instead: V8's young-generation
   *   collector treats a `WeakMap`'s values as strong, so a memo that refers
   *   to its key would keep every request alive until a full collection.
   */
  constructor(options: RequestAbEvaluationOptions<R>, request?: R) {
    this.#options = options;
    this.#request = request as R;
  }

  /**
   * Makes `request` the one calls without a request of their own are made
   * for (from now on), or none: what an adapter does when it lets go of a
   * finished request (see `AdapterRequestReader.letGoOfRequest`). Answers and
   * the user already known stay.
   */
  bindRequest(request: R | undefined): void {
    this.#request = request as R;
  }

  /**
   * Evaluates `keys` for the request's user.
   *
   * @param request - the request, when the memo was made without one (see the constructor).
   * @returns key → boolean for each key asked (a null-prototype object).
   * @throws whatever the `context` function throws, and `ClientClosedError` after `close()` (rejections).
   */
  evaluate(keys: readonly string[], request: R = this.#request): Promise<AbResults> {
    if (this.#settle(keys, request)) return Promise.resolve(this.#pick(keys));
    return this.#evaluateLater(keys, request);
  }

  /**
   * {@link RequestAbEvaluation.evaluate}, synchronously when every answer
   * is known now: the results themselves, else their promise.
   *
   * @param request - the request, when the memo was made without one (see the constructor).
   */
  now(keys: readonly string[], request: R = this.#request): AbResults | Promise<AbResults> {
    if (this.#settle(keys, request)) return this.#pick(keys);
    return this.#evaluateLater(keys, request);
  }

  /**
   * The first of `keys` that is off for the request's user, or `null` when
   * every one is on: what a guard decides on. Synchronous when every answer
   * is known now, else a promise (which rejects as
   * {@link RequestAbEvaluation.evaluate} does). Never throws.
   *
   * @param request - the request, when the memo was made without one (see the constructor).
   */
  offKey(keys: readonly string[], request: R = this.#request): string | null | Promise<string | null> {
    if (this.#settle(keys, request)) return this.#firstOff(keys);
    return this.#evaluateLater(keys, request).then(() => this.#firstOff(keys));
  }

  #firstOff(keys: readonly string[]): string | null {
    const settled = this.#settled;
    for (const key of keys) if (settled?.[key] !== true) return key;
    return null;
  }

  #pick(keys: readonly string[]): AbResults {
    const settled = this.#settled;
    const out: Record<string, boolean> = Object.create(null) as Record<string, boolean>;
    for (const key of keys) out[key] = settled?.[key] === true;
    return out;
  }

  #settledRecord(): Record<string, boolean> {
    return (this.#settled ??= Object.create(null) as Record<string, boolean>);
  }

  /**
   * True when every key of `keys` has its answer now, after settling what
   * can be settled without a call: an anonymous request's keys (off), and
   * answers `cached` gives. Never throws.
   */
  #settle(keys: readonly string[], request: R): boolean {
    const settled = this.#settled;
    let missing = false;
    for (const key of keys) {
      if (settled === undefined || !(key in settled)) {
        missing = true;
        break;
      }
    }
    if (!missing) return true;
    const pending = this.#pending;
    if (pending !== undefined) for (const key of keys) if (pending.has(key)) return false;
    const context = this.#contextNow(request);
    if (context === NOT_READY) return false;
    try {
      if (context === null || context === undefined) {
        const record = this.#settledRecord();
        for (const key of this.#unasked(keys, request)) record[key] = false;
        return true;
      }
      const { cached } = this.#options;
      if (cached === undefined) return false;
      // The request's first question (a guard's, mostly) asks the cache for the keys asked, alone. The
      // plan (the route's other A/B keys) only shapes a call, and looking it up reads the request
      // (`req.route`, a runtime lookup on Express's requests); when the cache answers, no call is made.
      // On a miss the call (`#evaluateLater`) carries the plan: a miss of the keys asked is a miss of the plan.
      const first = this.#settled === undefined && this.#pending === undefined;
      const wanted = first ? keys : this.#unasked(keys, request);
      const answers = cached.call(this.#options, wanted, context);
      if (answers === undefined) return false;
      // The first answers become the request's record (a new object, see `cached`): one object less.
      if (this.#settled === undefined) this.#settled = answers as Record<string, boolean>;
      else for (const key of wanted) this.#settled[key] = answers[key] === true;
      return true;
    } catch {
      // The asynchronous path meets the same failure, and reports it (a warning, or a rejection).
      return false;
    }
  }

  /**
   * `keys`, then the planned keys, less those answered or on their way; each
   * once. `keys` itself when that is all of them (the common case of a guard
   * whose keys are the route's plan): nothing is allocated.
   */
  #unasked(keys: readonly string[], request: R): readonly string[] {
    const planned = this.#options.plannedKeys?.call(this.#options, request) ?? NO_KEYS;
    if (this.#allUnasked(keys) && includesAll(keys, planned)) return keys;
    const out: string[] = [];
    this.#addUnasked(keys, out);
    this.#addUnasked(planned, out);
    return out;
  }

  /** Whether every key of `keys` is neither answered nor on its way, and none is there twice. */
  #allUnasked(keys: readonly string[]): boolean {
    const settled = this.#settled;
    const pending = this.#pending;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      if ((settled !== undefined && key in settled) || pending?.has(key) === true || keys.indexOf(key) !== i)
        return false;
    }
    return true;
  }

  #addUnasked(keys: readonly string[], out: string[]): void {
    const settled = this.#settled;
    const pending = this.#pending;
    for (const key of keys) {
      if (settled !== undefined && key in settled) continue;
      if (pending?.has(key) === true || out.includes(key)) continue;
      out.push(key);
    }
  }

  async #evaluateLater(keys: readonly string[], request: R): Promise<AbResults> {
    const wanted = this.#unasked(keys, request);
    if (wanted.length > 0) {
      const landed = this.#call(wanted, request).then((results) => {
        const record = this.#settledRecord();
        for (const key of wanted) {
          record[key] = results[key] === true;
          this.#pending!.delete(key);
        }
      });
      // Keys nobody awaits (a guard never reached) must not turn a rejection into an unhandled one.
      landed.catch(noop);
      const pending = (this.#pending ??= new Map());
      for (const key of wanted) pending.set(key, landed);
    }
    for (const key of keys) {
      const waiting = this.#pending?.get(key);
      if (waiting !== undefined) await waiting;
    }
    return this.#pick(keys);
  }

  async #call(keys: readonly string[], request: R): Promise<AbResults> {
    const context = await this.#contextLater(request);
    if (context === null || context === undefined) return {};
    try {
      return await this.#options.evaluate(keys, context);
    } catch (err) {
      // A closed client is the app shutting down, not the service failing: that one is not hidden.
      if (err instanceof ClientClosedError) throw err;
      this.#warn(
        request,
        `A/B evaluation of ${keys.map((k) => `"${k}"`).join(', ')} failed${codeOf(err)}, treating them as off: ${err instanceof Error ? redactText(err.message) : typeof err}`,
      );
      return {};
    }
  }

  #warn(request: R, message: string): void {
    const { logger } = this.#options;
    (typeof logger === 'function' ? logger(request) : logger).warn(message);
  }

  /** What the context function failing means: anonymous, with a warning; Vane's own argument error rethrown. */
  #contextFailed(err: unknown, request: R): null {
    // Vane's own argument error (an adapter asked for A/B with no abContext configured) is a bug
    // in the app's wiring, not an outage of its user source: it rejects, loudly.
    if (err instanceof InvalidArgumentError) throw err;
    this.#warn(
      request,
      `abContext failed${codeOf(err)}, treating the request as anonymous (its A/B flags are off): ${err instanceof Error ? redactText(err.message) : typeof err}`,
    );
    return null;
  }

  /** The user if known now (the context function asked now if it was not yet), else `NOT_READY`. */
  #contextNow(request: R): Context | typeof NOT_READY {
    const known = this.#context;
    if (known !== NOT_ASKED) return known instanceof Promise ? NOT_READY : known;
    let given: Context | PromiseLike<Context>;
    try {
      given = this.#options.context(request);
    } catch (err) {
      try {
        this.#context = this.#contextFailed(err, request);
      } catch (rethrown) {
        this.#context = Promise.reject(rethrown);
        this.#context.catch(noop);
        return NOT_READY;
      }
      return null;
    }
    if (!isThenable(given)) return (this.#context = given);
    const later: Promise<Context> = Promise.resolve(given).then(
      (value) => (this.#context = value),
      (err: unknown) => (this.#context = this.#contextFailed(err, request)),
    );
    later.catch(noop);
    this.#context = later;
    return NOT_READY;
  }

  #contextLater(request: R): Promise<Context> {
    const now = this.#contextNow(request);
    return now === NOT_READY ? (this.#context as Promise<Context>) : Promise.resolve(now);
  }
}
