import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { VaneClient } from '@vane/client';
import { FeatureFlagRequirement } from './feature-flag.metadata.js';
import type {
  FeatureFlagDenial,
  FeatureFlagException,
  FeatureFlagMetadata,
} from './interfaces/feature-flag-options.interface.js';
import type { VaneModuleOptions } from './interfaces/vane-module-options.interface.js';
import { VANE_MODULE_OPTIONS } from './vane.constants.js';
import { VaneRequestFlags } from './vane-request-flags.service.js';
import { refusalFor, refusalReady } from './transport-exceptions.js';
import { requestKeyOf } from './utils/request-key.js';

/**
 * Left on a request that a FeatureFlagGuard subclass let through, with the
 * handler: a subclass registered globally runs first, and its decision stands
 * when the base guard `@FeatureFlag()` puts on the route runs next. Only
 * subclasses mark requests: two base guards decide alike (and share the A/B
 * batch), and marking every request would cost more than the rest of the guard.
 */
const PASSED = Symbol('vane.featureFlagGuard.passed');
/** True once a subclass was built: until then no request can carry a mark, and none is looked for. */
let subclassed = false;

/**
 * The guard behind `@FeatureFlag()`: lets a request through when every flag
 * the handler (or else its controller) requires is on, and throws otherwise
 * (404 by default, see `flagException`). Routes without `@FeatureFlag()`
 * pass untouched, so it also works as a global guard:
 *
 * ```ts
 * providers: [{ provide: APP_GUARD, useClass: FeatureFlagGuard }]
 * ```
 *
 * Plain flags are answered synchronously from the client's cache; A/B flags
 * from the request's one batched `evaluate-ab` call. Subclass it and
 * override the protected hooks (`shouldSkip`, `getRequirement`,
 * `createException`) to change which requests are checked, how requirements
 * are read, or what is thrown; register the subclass as `APP_GUARD`: its
 * decision stands, and the guard `@FeatureFlag()` applies on the route does
 * not decide the same request again.
 */
@Injectable()
export class FeatureFlagGuard implements CanActivate {
  // Decorator metadata never changes after the class is defined: read it once per (controller, handler).
  readonly #requirements = new WeakMap<Function, WeakMap<Function, FeatureFlagMetadata | null>>();

  constructor(
    protected readonly reflector: Reflector,
    protected readonly client: VaneClient,
    protected readonly flags: VaneRequestFlags,
    @Inject(VANE_MODULE_OPTIONS) protected readonly options: VaneModuleOptions,
  ) {
    if (new.target !== FeatureFlagGuard) subclassed = true;
  }

  /** Allows the request, or throws the exception of the first flag that is off. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const requirement = this.#requirementOf(context);
    if (requirement === null) return true;
    const request = subclassed ? requestKeyOf(context) : undefined;
    const handler = context.getHandler();
    if (request !== undefined && (request as { [PASSED]?: Function })[PASSED] === handler) return true;
    if (this.shouldSkip(context)) return this.#pass(request, handler);
    if (requirement.ab) return this.#checkAb(requirement, context).then(() => this.#pass(request, handler));
    // The request's revision (taken here if this is its first Vane touch): the handler reads the same.
    const reader = this.flags.readerFor(context);
    for (const key of requirement.keys) {
      if (reader.flag(key)) continue;
      const state = reader.flagState(key);
      return this.#refuse({ key, reason: state.defined ? 'off' : 'undefined', ab: false }, requirement, context);
    }
    return this.#pass(request, handler);
  }

  /**
   * Throws the refusal, at once when the transport's exception class is at
   * hand (always over HTTP and GraphQL), else once it is loaded (the first
   * refusal in a microservice or a gateway).
   */
  #refuse(denial: FeatureFlagDenial, requirement: FeatureFlagMetadata, context: ExecutionContext): Promise<never> {
    const ready = refusalReady(context);
    if (ready === undefined) throw this.createException(denial, requirement, context);
    return ready.then(() => {
      throw this.createException(denial, requirement, context);
    });
  }

  #pass(request: object | undefined, handler: Function): true {
    // Reflect.set: a frozen request is simply not marked, never an error.
    if (request !== undefined && this.constructor !== FeatureFlagGuard) Reflect.set(request, PASSED, handler);
    return true;
  }

  #requirementOf(context: ExecutionContext): FeatureFlagMetadata | null {
    const cls = context.getClass();
    const handler = context.getHandler();
    let byHandler = this.#requirements.get(cls);
    if (byHandler === undefined) this.#requirements.set(cls, (byHandler = new WeakMap()));
    let requirement = byHandler.get(handler);
    if (requirement === undefined) {
      const found = this.getRequirement(context);
      requirement = found === undefined || found.keys.length === 0 ? null : found;
      byHandler.set(handler, requirement);
    }
    return requirement;
  }

  async #checkAb(requirement: FeatureFlagMetadata, context: ExecutionContext): Promise<void> {
    for (const key of requirement.keys) {
      const state = await this.flags.state(key, true, context);
      if (!state.on)
        await this.#refuse({ key, reason: state.defined ? 'off' : 'undefined', ab: true }, requirement, context);
    }
  }

  /**
   * Lets a request through without looking at its flags (e.g. internal
   * callers, admins). Only called for routes that have a requirement.
   * @default never skips
   */
  protected shouldSkip(_context: ExecutionContext): boolean {
    return false;
  }

  /**
   * The requirement that applies: the handler's `@FeatureFlag()`, else the
   * controller's. Called once per (controller, handler); the answer is cached.
   */
  protected getRequirement(context: ExecutionContext): FeatureFlagMetadata | undefined {
    return this.reflector.getAllAndOverride(FeatureFlagRequirement, [context.getHandler(), context.getClass()]);
  }

  /**
   * The error a refused request gets: the decorator's `exception`, else the
   * module's `flagException`, else a 404 in the form the transport expects:
   * over HTTP a `NotFoundException` worded like the platform's own
   * "Cannot GET /path" (Express or Fastify), in GraphQL a
   * `FeatureFlagGraphQLError` (`extensions.code: 'NOT_FOUND'`), in a
   * microservice an `RpcException`, on a WebSocket a `WsException`.
   */
  protected createException(
    denial: FeatureFlagDenial,
    requirement: FeatureFlagMetadata,
    context: ExecutionContext,
  ): Error {
    const choice: FeatureFlagException = requirement.exception ?? this.options.flagException ?? 404;
    return typeof choice === 'function' ? choice(denial, context) : refusalFor(choice, context);
  }
}
