/**
 * The A/B evaluation of one request, shared by the framework adapters.
 *
 * @packageDocumentation
 */
import type { AbContext, AbResults } from './ab-evaluation.js';
import { ClientClosedError, InvalidArgumentError } from '../errors.js';
import type { VaneLogger } from '../util/logger.js';
import { redactText } from '../util/redact.js';

/** What a {@link RequestAbEvaluation} needs. */
export interface RequestAbEvaluationOptions {
  /** Sends one evaluation: normally `(keys, user) => client.evaluateAb(keys, user)`. */
  evaluate(keys: readonly string[], context: AbContext): Promise<AbResults>;
  /**
   * The request's user, asked at most once per request. `null` or
   * `undefined` means anonymous: every A/B flag is off and nothing is sent.
   * An exception it throws (or a rejection) fails closed like a failed call:
   * the request is anonymous, and one warning names the error's code (the same
   * rule in every adapter). Only Vane's own `InvalidArgumentError` (no
   * `abContext` configured) rejects.
   */
  context(): AbContext | null | undefined | PromiseLike<AbContext | null | undefined>;
  /** Keys the request is known to need (e.g. its route's A/B guards): sent with the first call. */
  plannedKeys?(): readonly string[];
  /** Where a failed evaluation is reported (one warning per failed call). */
  logger: VaneLogger;
}

const noop = (): void => undefined;

/**
 * One request's A/B flags: every key is evaluated at most once; a call
 * carries the keys asked plus the planned keys not evaluated yet, so the
 * guards and parameters of a route cost one `evaluate-ab` call; concurrent
 * asks share it. A call that fails (add-on off, rate limit, network, a
 * context the client refuses) **fails closed**: its keys are `false`, and one
 * warning names them and the error code. Only a closed client rejects.
 */
export class RequestAbEvaluation {
  readonly #results = new Map<string, Promise<boolean>>();
  #context: Promise<AbContext | null | undefined> | undefined;

  /** @param options - how to send, who the user is, what is planned, where to warn. */
  constructor(private readonly options: RequestAbEvaluationOptions) {}

  /**
   * Evaluates `keys` for the request's user.
   *
   * @returns key → boolean for each key asked (a null-prototype object).
   * @throws whatever the `context` function throws, and `ClientClosedError` after `close()` (rejections).
   */
  async evaluate(keys: readonly string[]): Promise<AbResults> {
    const wanted = [...keys, ...(this.options.plannedKeys?.() ?? [])];
    const missing = [...new Set(wanted)].filter((k) => !this.#results.has(k));
    if (missing.length > 0) {
      const call = this.#call(missing);
      for (const key of missing) {
        const result = call.then((results) => results[key] === true);
        // Keys nobody awaits (a guard never reached) must not turn a rejection into an unhandled one.
        result.catch(noop);
        this.#results.set(key, result);
      }
    }
    const values = await Promise.all(keys.map((k) => this.#results.get(k)!));
    const out: Record<string, boolean> = Object.create(null) as Record<string, boolean>;
    keys.forEach((k, i) => (out[k] = values[i]!));
    return out;
  }

  async #call(keys: readonly string[]): Promise<AbResults> {
    const context = await this.#contextOnce();
    if (context === null || context === undefined) return {};
    try {
      return await this.options.evaluate(keys, context);
    } catch (err) {
      // A closed client is the app shutting down, not the service failing: that one is not hidden.
      if (err instanceof ClientClosedError) throw err;
      const code = (err as { code?: unknown } | null)?.code;
      this.options.logger.warn(
        `A/B evaluation of ${keys.map((k) => `"${k}"`).join(', ')} failed${typeof code === 'string' ? ` (${code})` : ''}, treating them as off: ${err instanceof Error ? redactText(err.message) : typeof err}`,
      );
      return {};
    }
  }

  #contextOnce(): Promise<AbContext | null | undefined> {
    if (this.#context === undefined) {
      this.#context = Promise.resolve()
        .then(() => this.options.context())
        .catch((err: unknown) => {
          // Vane's own argument error (an adapter asked for A/B with no abContext configured) is a bug
          // in the app's wiring, not an outage of its user source: it rejects, loudly.
          if (err instanceof InvalidArgumentError) throw err;
          const code = (err as { code?: unknown } | null)?.code;
          this.options.logger.warn(
            `abContext failed${typeof code === 'string' ? ` (${code})` : ''}, treating the request as anonymous (its A/B flags are off): ${err instanceof Error ? redactText(err.message) : typeof err}`,
          );
          return null;
        });
      this.#context.catch(noop);
    }
    return this.#context;
  }
}
