/**
 * `FastifyVane`: what the plugin decorates the app with, as `app.vane`.
 *
 * @packageDocumentation
 */
import type {
  FlagKey,
  LiveResource,
  LiveResourceDefinition,
  VaneClient,
  VaneClientStatus,
  VaneLogger,
  VaneView,
} from '@vane/client';
import {
  callView,
  type RegisteredSchema,
  type RequestAbEvaluationOptions,
  whenResponseEnds,
} from '@vane/client/adapter';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { createErrorHandler, type VaneFastifyErrorHandler } from './error-handler.js';
import { createFlagGuard, type GuardInfo, type VaneFlagGuard } from './flag-guard.js';
import { fastifyAbOptions } from './request-ab.js';
import { RequestVaneAccessor } from './request-vane.accessor.js';
import type {
  AbContextFactory,
  FlagOffOptions,
  RequireFlagOptions,
  VaneErrorHandlerOptions,
} from './vane-fastify.options.js';

/** Where a request keeps its `request.vane`, made on first use. Internal. */
export const ACCESSOR: unique symbol = Symbol.for('vane.fastify.request-vane');

/** Called when a pinned response ended: lets go of its request's revision (one function for every request). */
function releaseRequestView(response: object): void {
  (response as Record<symbol, VaneView | undefined>)[ACCESSOR]?.release();
}

/** A request as the plugin leaves it. */
export interface RequestWithAccessor {
  [ACCESSOR]: RequestVaneAccessor | null;
}

/** What a `FastifyVane` is built from. Internal: the plugin assembles it. */
export interface FastifyVaneParts {
  readonly client: VaneClient;
  readonly abContext: AbContextFactory | undefined;
  readonly flagOff: FlagOffOptions | undefined;
  /** The plugin's `logger` option: undefined for `request.log`. */
  readonly logger: VaneLogger | undefined;
  /** One revision per request (the `consistentReads` option). */
  readonly consistentReads: boolean;
}

/**
 * Vane in a Fastify app, as `app.vane` (set by the plugin): the client,
 * its status, flag guards, and the error handler.
 *
 * @example
 * ```ts
 * await app.register(vane, { baseUrl: process.env.VANE_BASE_URL!, apiKey: process.env.VANE_API_KEY! });
 * app.get('/checkout', { preHandler: app.vane.requireFlag('new-checkout') }, async () => ({ checkout: 'new' }));
 * ```
 */
export class FastifyVane {
  /** The underlying client (change listeners, `connected`, secret writes…). */
  readonly client: VaneClient;
  readonly #parts: FastifyVaneParts;
  readonly #guards = new WeakMap<object, GuardInfo>();
  readonly #requiredKeys = new Set<string>();
  /** Live resources opened through this app, closed with it. */
  readonly #liveResources = new Set<LiveResource<unknown>>();
  /** What every request's A/B memo is made with. */
  readonly #ab: RequestAbEvaluationOptions<FastifyRequest>;

  /** @internal Made by the plugin. */
  constructor(parts: FastifyVaneParts) {
    this.client = parts.client;
    this.#parts = parts;
    this.#ab = fastifyAbOptions(parts.client, parts.abContext, parts.logger);
  }

  /**
   * The client's connection state, for a health route: `mode`, `connected`,
   * `billingOverdue`, and `stale` while the app serves its last-known-good
   * backup (`lastKnownGood` option).
   */
  get status(): VaneClientStatus {
    return this.client.status;
  }

  /**
   * A guard hook that lets the request through when the flag (every flag,
   * for an array) is on; otherwise the request gets the path's not-found
   * answer (your `setNotFoundHandler`, else Fastify's 404), or what
   * `options` (or the plugin's `flagOff` option) says. A flag that is not
   * defined is off. Use it as a route's `onRequest` or `preHandler`
   * (`{ preHandler: app.vane.requireFlag('new-checkout') }`), or for a whole
   * scope with `addHook`.
   *
   * With `{ ab: true }` the flags are evaluated for the request's user
   * through the A/B add-on, with the context from the `abContext` option;
   * every A/B guard of a route, and `request.vane.ab()`, share one
   * evaluate-ab call per request. A failed evaluation fails closed (off).
   *
   * @throws InvalidArgumentError - at once, for a bad key or option, or `ab`
   *   without an `abContext` option.
   */
  requireFlag(
    keys: FlagKey<RegisteredSchema> | readonly FlagKey<RegisteredSchema>[],
    options?: RequireFlagOptions,
  ): VaneFlagGuard {
    const { guard, info } = this.makeGuard(keys, options, 'requireFlag');
    this.#guards.set(guard, info);
    for (const key of info.keys) this.#requiredKeys.add(key);
    return guard;
  }

  /**
   * Opens a live resource on the client (see `client.liveResource`): a pool
   * (or any instance) built now from the configs and secrets it names, and
   * rebuilt and swapped when they change; the old instance is disposed of
   * once the requests that borrowed it (`pool.use(p => …)`) have finished.
   * Disposed of when the app closes (its `onClose`), whether or not the app
   * owns the client.
   *
   * @returns the handle, once the first instance is built.
   * @throws LiveResourceBuildError - (a rejection) the first build failed; nothing is left open.
   */
  async liveResource<T, C extends string = never, S extends string = never, F extends string = never>(
    definition: LiveResourceDefinition<T, C, S, F>,
  ): Promise<LiveResource<T>> {
    const resource = await this.client.liveResource(definition);
    this.#liveResources.add(resource as LiveResource<unknown>);
    return resource;
  }

  /** @internal Closes the live resources opened through {@link FastifyVane.liveResource} (the app's `onClose`). */
  async closeLiveResources(): Promise<void> {
    const resources = [...this.#liveResources];
    this.#liveResources.clear();
    await Promise.all(resources.map((resource) => resource.close()));
  }

  /**
   * The error handler the plugin sets unless told `errorHandler: false`: for
   * your own place, `scope.setErrorHandler(app.vane.errorHandler())`. Vane
   * errors get `{ statusCode, code, message }` with a status by code and a
   * fixed message; other errors are thrown on to the previous handler.
   */
  errorHandler(options?: VaneErrorHandlerOptions): VaneFastifyErrorHandler {
    return createErrorHandler(options, this.#parts.logger);
  }

  /** @internal A guard, not registered as a `requireFlag()` one. */
  makeGuard(
    keys: string | readonly string[],
    options: RequireFlagOptions | undefined,
    where: string,
  ): { guard: VaneFlagGuard; info: GuardInfo } {
    return createFlagGuard(
      {
        client: this.client,
        readerFor: (request) => this.accessorFor(request),
        hasAbContext: this.#parts.abContext !== undefined,
        flagOff: this.#parts.flagOff,
        abOf: (request) => this.accessorFor(request).abEvaluation,
      },
      keys,
      options,
      where,
    );
  }

  /** @internal Every key a `requireFlag()` guard names, for the startup check. */
  requiredKeys(): ReadonlySet<string> {
    return this.#requiredKeys;
  }

  /** @internal What `requireFlag()` made `hook` with, if it did. */
  guardInfo(hook: unknown): GuardInfo | undefined {
    return typeof hook === 'function' ? this.#guards.get(hook) : undefined;
  }

  /**
   * @internal The request's `request.vane`, made on first use. Made by the
   * plugin's `onRequest` hook, with `reply`, it holds the request's revision
   * until the response closes; made elsewhere (a request outside the
   * plugin's scope), it reads live.
   */
  accessorFor(request: FastifyRequest, reply?: FastifyReply): RequestVaneAccessor {
    const holder = request as unknown as RequestWithAccessor;
    let accessor = holder[ACCESSOR];
    if (!accessor) {
      const { client, consistentReads } = this.#parts;
      const view = consistentReads && reply !== undefined ? callView(client) : undefined;
      // A view shared by the requests of its revision (one without file secrets) has nothing to let go of.
      if (view?.held === true) {
        // The request's revision is let go once its response is done (sent, or the connection gone).
        (reply!.raw as unknown as Record<symbol, VaneView>)[ACCESSOR] = view;
        whenResponseEnds(reply!.raw, releaseRequestView);
      }
      accessor = new RequestVaneAccessor(view ?? client, this.#ab, request, view);
      holder[ACCESSOR] = accessor;
    }
    return accessor;
  }

  /**
   * @internal The plugin's `onRequest` and `preHandler` hook: takes the
   * request's revision (on arrival) and runs the rest of the request in its
   * pinned scope. Run again before the handlers, since reading a body
   * resumes the request from a stream event, outside the scope.
   */
  readonly pinHook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const view = this.accessorFor(request, reply).view;
    if (view === undefined) done();
    else view.run(done);
  };
}
