import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { VaneClient } from '@vane/client';
import { flagDenialOf } from '@vane/client/adapter';
import { featureFlagRequirementOf } from './feature-flag.metadata.js';
import type {
  FeatureFlagDenial,
  FeatureFlagException,
  FeatureFlagMetadata,
} from './interfaces/feature-flag-options.interface.js';
import type { VaneModuleOptions } from './interfaces/vane-module-options.interface.js';
import { VANE_MODULE_OPTIONS } from './vane.constants.js';
import { VaneRequestFlags } from './vane-request-flags.service.js';
import { refusalFor, refusalReady } from './transport-exceptions.js';

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
  constructor(
    protected readonly reflector: Reflector,
    protected readonly client: VaneClient,
    protected readonly flags: VaneRequestFlags,
    @Inject(VANE_MODULE_OPTIONS) protected readonly options: VaneModuleOptions,
  ) {
    // A subclass's decision stands: the module's VaneRequestFlags remembers the requests it let through.
    if (new.target !== FeatureFlagGuard) flags.noteSubclassGuard();
  }

  /** Allows the request, or throws the exception of the first flag that is off. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const requirement = this.flags.requirementOf(context, this.#read);
    if (requirement === null) return true;
    if (this.flags.passedByGuard(context)) return true;
    if (this.shouldSkip(context)) return this.#pass(context);
    if (requirement.ab) return this.#checkAb(requirement, context);
    // The request's revision (taken here if this is its first Vane touch): the handler reads the same.
    const reader = this.flags.readerFor(context);
    for (const key of requirement.keys) {
      // A feature_flag.evaluation event on the request's span, when tracing, at the revision the guard decided on
      // (the request's pinned view: the guard runs before the handler's pinned scope begins).
      this.client.telemetry.recordFlag(key, undefined, reader);
      if (reader.flag(key)) continue;
      return this.#refuse(flagDenialOf(reader, key, false), requirement, context);
    }
    return this.#pass(context);
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

  /** How this guard reads requirements: its `getRequirement`, bound once. */
  readonly #read = (context: ExecutionContext): FeatureFlagMetadata | undefined => this.getRequirement(context);

  #pass(context: ExecutionContext): true {
    // Only subclasses leave their decision for the route's own guard; two base guards decide alike.
    if (this.constructor !== FeatureFlagGuard) this.flags.markPassed(context);
    return true;
  }

  /**
   * Decides on A/B flags: synchronously when the user's answers are cached,
   * else once the request's one call answers. The keys before the first one
   * the snapshot does not define are evaluated; that one refuses as
   * `undefined` if they are all on.
   */
  #checkAb(requirement: FeatureFlagMetadata, context: ExecutionContext): boolean | Promise<boolean> {
    const { keys } = requirement;
    const reader = this.flags.readerFor(context);
    let known = keys.length;
    for (let i = 0; i < keys.length; i++) {
      if (!reader.flagState(keys[i]!).defined) {
        known = i;
        break;
      }
    }
    if (known === 0) return this.#decideAb(null, known, requirement, context);
    const offKey = this.flags.abOffKey(context, known === keys.length ? keys : keys.slice(0, known));
    if (offKey instanceof Promise) return offKey.then((key) => this.#decideAb(key, known, requirement, context));
    return this.#decideAb(offKey, known, requirement, context);
  }

  /** Refuses for the key that is off, else for the first key not defined (at `known`), else lets through. */
  #decideAb(
    offKey: string | null,
    known: number,
    requirement: FeatureFlagMetadata,
    context: ExecutionContext,
  ): true | Promise<never> {
    if (offKey !== null) return this.#refuse({ key: offKey, reason: 'off', ab: true }, requirement, context);
    if (known < requirement.keys.length)
      return this.#refuse({ key: requirement.keys[known]!, reason: 'undefined', ab: true }, requirement, context);
    return this.#pass(context);
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
   * controller's. Called once per (controller, handler); the answer is kept
   * by {@link VaneRequestFlags.requirementOf}, which the request's A/B plan
   * reads too, so an override here changes both.
   */
  protected getRequirement(context: ExecutionContext): FeatureFlagMetadata | undefined {
    return featureFlagRequirementOf(this.reflector, context);
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
