import { Inject, Injectable, Optional, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { VaneClient, type AbResults, type VaneLogger, type VaneReader } from '@vane/client';
import { RequestAbEvaluation, type RequestAbEvaluationOptions } from '@vane/client/adapter';
import { featureFlagRequirementOf } from './feature-flag.metadata.js';
import type { FeatureFlagMetadata } from './interfaces/feature-flag-options.interface.js';
import type { VaneContextFactory } from './interfaces/vane-context-factory.interface.js';
import { VANE_CONTEXT_FACTORY, VANE_LOGGER } from './vane.constants.js';
import { paramsOf } from './utils/param-metadata.js';
import { callStateOf, existingCallStateOf } from './utils/call-state.js';
import { VaneRequestPins } from './vane-request-pins.service.js';

/** A flag's answer for one request. */
export interface RequestFlagState {
  /** True when the snapshot defines the flag. */
  readonly defined: boolean;
  /** True when the flag is on (for this user, with `ab`). */
  readonly on: boolean;
}

/** What is known of one handler: its flag requirement (who read it) and its A/B plan. */
interface HandlerFlags {
  readonly requirement: FeatureFlagMetadata | null;
  /** True when a guard read it (with its own `getRequirement`), false when read here by default. */
  readonly byGuard: boolean;
  abKeys?: readonly string[];
}

/** How a guard reads a handler's requirement (`FeatureFlagGuard.getRequirement`). */
export type FeatureFlagRequirementReader = (context: ExecutionContext) => FeatureFlagMetadata | undefined;

/**
 * Evaluates flags for the request at hand. Plain flags are read from the
 * client's cache (no I/O). A/B flags are evaluated for the requesting user
 * through the A/B add-on, and **every A/B flag the handler needs** (its
 * `@FeatureFlag(…, { ab: true })`, or the controller's, and its
 * `@Flag(…, { ab: true })` parameters) **goes out in one `evaluate-ab`
 * call per request**, whose answer is shared by the guard and the parameters.
 *
 * Used by `FeatureFlagGuard` and `@Flag()`; inject it in your own guards,
 * interceptors or resolvers to read flags the same way.
 */
@Injectable()
export class VaneRequestFlags {
  /** What every request's A/B memo is made with (the request's first execution context is its `R`). */
  readonly #ab: RequestAbEvaluationOptions<ExecutionContext>;
  /** By controller, then handler: decorator metadata never changes once the class is defined. */
  readonly #handlers = new WeakMap<Function, WeakMap<Function, HandlerFlags>>();
  #subclassGuards = false;

  constructor(
    private readonly client: VaneClient,
    private readonly reflector: Reflector,
    @Inject(VANE_CONTEXT_FACTORY) private readonly contextFactory: VaneContextFactory,
    @Inject(VANE_LOGGER) private readonly logger: VaneLogger,
    @Optional() private readonly pins?: VaneRequestPins,
  ) {
    this.#ab = {
      evaluate: (keys, user) => this.client.evaluateAb(keys, user),
      cached: (keys, user) => this.client.evaluateAbCached(keys, user),
      context: (context) => this.contextFactory(context),
      plannedKeys: (context) => this.abKeysOf(context),
      logger: this.logger,
    };
  }

  /**
   * What the request of `context` reads through: the revision it is pinned
   * to (taken now if this is its first Vane touch), or the client (live)
   * with `consistentReads: false`.
   */
  readerFor(context: ExecutionContext): VaneReader & { readonly revision: number } {
    return this.pins?.readerFor(context) ?? this.client;
  }

  /**
   * A flag's state for this request. Without `ab` it is the flag's
   * server-computed `is_active` (synchronous underneath); with `ab` it is the
   * user's evaluation, from the request's one batched call.
   */
  async state(key: string, ab: boolean, context: ExecutionContext): Promise<RequestFlagState> {
    return this.stateNow(key, ab, context);
  }

  /**
   * {@link VaneRequestFlags.state}, synchronously when the answer is known
   * now: a plain flag, or an A/B flag whose answer the client has cached
   * (or the request evaluated already); else its promise.
   */
  stateNow(key: string, ab: boolean, context: ExecutionContext): RequestFlagState | Promise<RequestFlagState> {
    const { defined, active } = this.readerFor(context).flagState(key);
    if (!ab || !defined) return { defined, on: active };
    const offKey = this.abOffKey(context, [key]);
    return offKey instanceof Promise
      ? offKey.then((off) => ({ defined, on: off === null }))
      : { defined, on: offKey === null };
  }

  /**
   * The first of `keys` (A/B flags) that is off for the request's user, or
   * `null` when all are on, from the request's one batched call (see
   * {@link VaneRequestFlags.abResults}): synchronously when every answer is
   * known now (cached by the client), else a promise.
   */
  abOffKey(context: ExecutionContext, keys: readonly string[]): string | null | Promise<string | null> {
    return this.#evaluationOf(context).offKey(keys, context);
  }

  /**
   * The flag requirement of the handler of `context`, or `null` for none:
   * the one place a route's requirement is read, by the guard (with its
   * `getRequirement`, so a subclass that reads requirements its own way is
   * followed by the A/B plan too) and by the plan. Read once per (controller,
   * handler); a guard's reading replaces one made here by default.
   *
   * @param read - how the guard reads it; by default the `@FeatureFlag()` metadata.
   */
  requirementOf(context: ExecutionContext, read?: FeatureFlagRequirementReader): FeatureFlagMetadata | null {
    return this.#handlerFlags(context, read).requirement;
  }

  /**
   * The A/B keys the handler of `context` needs: its requirement's keys when
   * it is A/B (see {@link VaneRequestFlags.requirementOf}) and its
   * `@Flag(…, { ab: true })` parameters. Computed once per handler.
   */
  abKeysOf(context: ExecutionContext): readonly string[] {
    const entry = this.#handlerFlags(context);
    if (entry.abKeys === undefined) {
      const set = new Set<string>();
      if (entry.requirement?.ab) for (const key of entry.requirement.keys) set.add(key);
      for (const param of paramsOf(context.getClass(), context.getHandler().name))
        if (param.kind === 'flag' && param.options.ab) set.add(param.key);
      entry.abKeys = [...set];
    }
    return entry.abKeys;
  }

  /**
   * True when a `FeatureFlagGuard` subclass already let this request through
   * to this handler (its decision stands). @internal
   */
  passedByGuard(context: ExecutionContext): boolean {
    if (!this.#subclassGuards) return false;
    return existingCallStateOf(context)?.passedTo === context.getHandler();
  }

  /** Records that a `FeatureFlagGuard` subclass let this request through. @internal */
  markPassed(context: ExecutionContext): void {
    callStateOf(context).passedTo = context.getHandler();
  }

  /** A `FeatureFlagGuard` subclass exists: until then no request is looked up. @internal */
  noteSubclassGuard(): void {
    this.#subclassGuards = true;
  }

  #handlerFlags(context: ExecutionContext, read?: FeatureFlagRequirementReader): HandlerFlags {
    const cls = context.getClass();
    const handler = context.getHandler();
    let byHandler = this.#handlers.get(cls);
    if (byHandler === undefined) this.#handlers.set(cls, (byHandler = new WeakMap()));
    let entry = byHandler.get(handler);
    if (entry === undefined || (read !== undefined && !entry.byGuard)) {
      const found = read ? read(context) : featureFlagRequirementOf(this.reflector, context);
      entry = {
        requirement: found === undefined || found.keys.length === 0 ? null : found,
        byGuard: read !== undefined,
      };
      byHandler.set(handler, entry);
    }
    return entry;
  }

  /**
   * The request's A/B results: the first caller starts one `evaluate-ab`
   * call for every A/B key of the handler (plus `extraKeys`); later callers
   * of the same request share it. A key asked later that the first call did
   * not carry costs one more call. An anonymous request (the context factory
   * returns `undefined`) or a failed call answers `false` for every key (the
   * failure is logged once): a flag fails closed. The batching is
   * `RequestAbEvaluation` from `@vane/client`, shared with `@vane/express`.
   */
  abResults(context: ExecutionContext, extraKeys: readonly string[] = []): Promise<AbResults> {
    return this.#evaluationOf(context).evaluate([...new Set([...this.abKeysOf(context), ...extraKeys])], context);
  }

  /**
   * The request's A/B memo, made at its first A/B question. It is kept in the
   * call's state (a WeakMap keyed by the call's object), so it is made
   * without the context, which refers to that object: each question hands
   * its own context (see `RequestAbEvaluation`'s constructor for why).
   */
  #evaluationOf(context: ExecutionContext): RequestAbEvaluation<ExecutionContext> {
    const state = callStateOf(context);
    return (state.abEvaluation ??= new RequestAbEvaluation(this.#ab));
  }
}
