/**
 * What a framework adapter gives a request (`req.vane`, `request.vane`):
 * reads of the request's view (one revision per request; or live reads
 * on the client), plus the request's A/B memo. One class for every adapter.
 *
 * @packageDocumentation
 */
import type { AbResults } from '@vane/client-core';
import {
  RequestAbEvaluation,
  type RequestAbEvaluationOptions,
  type RequestAbMemo,
} from '../ab/request-ab-evaluation.js';
import { InvalidArgumentError } from '../errors.js';
import type { SecretVersionInfo } from '../store/change-event.js';
import type { ConfigValue } from '@vane/client-core';
import type { ConfigLookup, FlagState, VaneReader, WidenConfig } from '../vane-reader.js';
import type { VaneView } from '../vane-view.js';

/**
 * A request's reader: the request's view's (or the client's) reads, and
 * `ab()` through the request's A/B memo, made on the request's first A/B
 * question (most requests ask none: a plain-flag route allocates no memo).
 *
 * @typeParam R - what the adapter calls a request, handed to the A/B options' functions.
 */
export class AdapterRequestReader<R = unknown> implements VaneReader {
  readonly #client: VaneReader;
  readonly #name: string;
  readonly #abOptions: RequestAbEvaluationOptions<R>;
  #request: R | undefined;
  #abEvaluation: RequestAbEvaluation<R> | undefined = undefined;
  /** The request's view (`client.view()`), whose scope the request runs in; `undefined` for live reads. */
  readonly view: VaneView | undefined;

  /**
   * @param reader - what is read: the request's view, or the client itself (live reads).
   * @param abOptions - what the request's A/B memo is made with (one object for every request of an app).
   * @param request - the request, handed to the functions of `abOptions`.
   * @param name - what the app calls it (`req.vane`), for error messages.
   * @param view - the request's view, when it has one (the adapter releases it when the request ends).
   */
  constructor(reader: VaneReader, abOptions: RequestAbEvaluationOptions<R>, request: R, name: string, view?: VaneView) {
    this.#client = reader;
    this.#abOptions = abOptions;
    this.#request = request;
    this.#name = name;
    this.view = view;
  }

  /**
   * The former name of {@link AdapterRequestReader.view}.
   *
   * @deprecated Use `view`; `snapshot` now names only what the service serves.
   */
  get snapshot(): VaneView | undefined {
    return this.view;
  }

  /**
   * Forgets the request (its A/B memo too) once its response is done. An
   * adapter that keeps its readers in a `WeakMap` keyed by the request calls
   * it: V8's young-generation collector treats a `WeakMap`'s values as
   * strong, so a reader still referring to its finished request would keep
   * every request alive until a full collection.
   */
  letGoOfRequest(): void {
    if (this.#request === undefined) return;
    this.#request = undefined;
    this.#abEvaluation?.bindRequest(undefined);
  }

  /**
   * Takes the request again (after {@link AdapterRequestReader.letGoOfRequest}),
   * when code still running for it reads it: its A/B questions still know
   * their user. Such a request then lives until a full collection.
   */
  holdRequest(request: R): void {
    if (this.#request === request) return;
    this.#request = request;
    this.#abEvaluation?.bindRequest(request);
  }

  /** The request's A/B memo (a `RequestAbEvaluation`), shared with the route's A/B guards; made on first use. */
  get abEvaluation(): RequestAbMemo {
    return (this.#abEvaluation ??= new RequestAbEvaluation(this.#abOptions, this.#request));
  }

  config<T extends ConfigValue = ConfigValue>(key: string): T | undefined;
  config<T extends ConfigValue>(key: string, defaultValue: T): WidenConfig<T>;
  config(key: string, defaultValue?: ConfigValue): ConfigValue | undefined {
    return arguments.length < 2 ? this.#client.config(key) : this.#client.config(key, defaultValue as ConfigValue);
  }

  configLookup(key: string): ConfigLookup {
    return this.#client.configLookup(key);
  }

  flag(key: string, defaultValue = false): boolean {
    return this.#client.flag(key, defaultValue);
  }

  flagState(key: string): FlagState {
    return this.#client.flagState(key);
  }

  secret(key: string): string | null {
    return this.#client.secret(key);
  }

  secretFile(key: string): string | null {
    return this.#client.secretFile(key);
  }

  secretInfo(key: string): SecretVersionInfo | null {
    return this.#client.secretInfo(key);
  }

  requireSecret(key: string): string {
    return this.#client.requireSecret(key);
  }

  requireSecretFile(key: string): string {
    return this.#client.requireSecretFile(key);
  }

  /** The request's user's evaluation of an A/B flag, or of several (one call for the request). */
  ab(key: string): Promise<boolean>;
  ab(keys: readonly string[]): Promise<AbResults>;
  ab(keys: string | readonly string[]): Promise<boolean | AbResults> {
    if (typeof keys === 'string') {
      const results = this.abEvaluation.now([keys]);
      return results instanceof Promise ? results.then((r) => r[keys]!) : Promise.resolve(results[keys]!);
    }
    if (!Array.isArray(keys) || keys.some((k) => typeof k !== 'string'))
      return Promise.reject(
        new InvalidArgumentError(`${this.#name}.ab(): keys must be a string or an array of strings`),
      );
    return this.abEvaluation.evaluate(keys);
  }
}
