/**
 * `VaneExpress`: what {@link createVane} resolves with.
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
} from '@vane/client';
import { callView, consoleLogger, type RegisteredSchema, type RequestAbEvaluationOptions } from '@vane/client/adapter';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { expressAbOptions, type AbGuardRegistry } from './ab-batch.js';
import { createErrorHandler, type ErrorHandlerOptions } from './error-handler.js';
import { createFlagGuard, type RequireFlagOptions } from './require-flag.js';
import { RequestVaneAccessor } from './request-vane.accessor.js';
import { accessorAmong, keepAccessor, lastAccessorOf } from './request-accessors.js';
import type { AbContextFactory, FlagOffOptions } from './vane-express.options.js';

/** What a `VaneExpress` is built from. Internal: {@link createVane} assembles it. */
export interface VaneExpressParts {
  readonly client: VaneClient;
  readonly abContext: AbContextFactory | undefined;
  readonly flagOff: FlagOffOptions | undefined;
  readonly logger: VaneLogger | undefined;
  /** One revision per request (the `consistentReads` option). */
  readonly consistentReads: boolean;
}

/**
 * Vane for one Express app (or several): the middleware that puts
 * `req.vane` on requests, flag guards, the error handler, and `close()`.
 * Build it with {@link createVane}.
 *
 * @example
 * ```ts
 * const vane = await createVane({ baseUrl: process.env.VANE_BASE_URL!, apiKey: process.env.VANE_API_KEY! });
 * app.use(vane.middleware());
 * app.get('/checkout', vane.requireFlag('new-checkout'), (req, res) => res.json({ ok: true }));
 * app.use(vane.errorHandler());
 * ```
 */
export class VaneExpress {
  /** The underlying client (change listeners, `connected`, secret writes…). Closed by {@link VaneExpress.close}. */
  readonly client: VaneClient;
  readonly #abContext: AbContextFactory | undefined;
  readonly #flagOff: FlagOffOptions | undefined;
  readonly #logger: VaneLogger;
  readonly #consistentReads: boolean;
  readonly #registry: AbGuardRegistry = new WeakMap();
  /** What every request's A/B memo is made with. */
  readonly #ab: RequestAbEvaluationOptions<Request>;
  #closing: Promise<void> | undefined;

  /** @internal Use {@link createVane}. */
  constructor(parts: VaneExpressParts) {
    this.client = parts.client;
    this.#abContext = parts.abContext;
    this.#flagOff = parts.flagOff;
    this.#logger = parts.logger ?? consoleLogger;
    this.#consistentReads = parts.consistentReads;
    this.#ab = expressAbOptions(this.client, this.#abContext, this.#registry, this.#logger);
  }

  /**
   * The client's connection state, for a health route: `mode`, `connected`,
   * `billingOverdue`, and `stale` while the app serves its last-known-good
   * backup (`lastKnownGood` option; it started during an outage): why, the
   * start's error, the backup's revision and time of save.
   */
  get status(): VaneClientStatus {
    return this.client.status;
  }

  /**
   * The middleware that sets `req.vane` (see {@link RequestVane}) and, with
   * `consistentReads` (the default), pins the request to the revision served
   * now: `req.vane`, the guards and `vane.client` reads in the rest of the
   * chain answer from it until the response closes. Mount it before the
   * routes that read it, after body parsers (a middleware that resumes the
   * chain from a stream event, as body parsers do, leaves the pinned scope
   * for `vane.client` reads; `req.vane` stays pinned):
   * `app.use(express.json(), vane.middleware())`.
   */
  middleware(): RequestHandler {
    return (req, res, next) => {
      this.#accessorFor(req, res).continue(next);
    };
  }

  /**
   * A guard that lets the request through when the flag (every flag, for
   * an array) is on, and otherwise answers 404 — or what `options` (or the
   * `flagOff` option of `createVane`) says. A flag that is not defined is off.
   *
   * With `{ ab: true }` the flags are evaluated for the request's user
   * through the A/B add-on, with the context from the `abContext` option;
   * every A/B guard of a route (`app.get(path, guardA, guardB, handler)`),
   * and `req.vane.ab()`, share one evaluate-ab call per request. An
   * evaluation failure goes to `next(err)` (see {@link VaneExpress.errorHandler}).
   *
   * @throws InvalidArgumentError - at once, for a bad key or option, or `ab`
   *   without an `abContext` option.
   */
  requireFlag(
    keys: FlagKey<RegisteredSchema> | readonly FlagKey<RegisteredSchema>[],
    options?: RequireFlagOptions,
  ): RequestHandler {
    return createFlagGuard(
      {
        client: this.client,
        registry: this.#registry,
        hasAbContext: this.#abContext !== undefined,
        flagOff: this.#flagOff,
        logger: this.#logger,
        accessorFor: (req, res) => this.#accessorFor(req, res),
      },
      keys,
      options,
    );
  }

  /**
   * The error middleware that answers Vane errors (those of `@vane/client`
   * and of this package) with JSON `{ statusCode, code, message }`: a status
   * chosen by the error's code, its stable code, and a fixed message that
   * never holds an API key, a key name or a value. Other errors go to `next(err)`.
   * Mount it after the routes: `app.use(vane.errorHandler())`.
   */
  errorHandler(options?: ErrorHandlerOptions): ErrorRequestHandler {
    return createErrorHandler(options, this.#logger);
  }

  /**
   * Opens a live resource on the client (see `client.liveResource`): a pool
   * (or any instance) built now from the configs and secrets it names, and
   * rebuilt and swapped when they change; the old instance is disposed of
   * once the requests that borrowed it (`pool.use(p => …)`) have finished.
   * Disposed of by {@link VaneExpress.close}.
   *
   * @returns the handle, once the first instance is built.
   * @throws LiveResourceBuildError - (a rejection) the first build failed.
   */
  liveResource<T, C extends string = never, S extends string = never, F extends string = never>(
    definition: LiveResourceDefinition<T, C, S, F>,
  ): Promise<LiveResource<T>> {
    return this.client.liveResource(definition);
  }

  /**
   * Closes the client: stream, timers, sockets and file secrets, and
   * disposes of the live resources (once their borrowers finish). Idempotent
   * (every call returns the same promise). Reads on `req.vane` keep answering
   * from the last state afterwards (file secret paths become `null`);
   * A/B evaluations fail with `ClientClosedError`.
   */
  close(): Promise<void> {
    return (this.#closing ??= this.client.close());
  }

  #accessorFor(req: Request, res: Response): RequestVaneAccessor {
    // One lookup of the request: its accessors, this Vane's among them (an app usually mounts one).
    const last = lastAccessorOf(req, res);
    let accessor = accessorAmong(last, this);
    // A guard reached after the response was done (an app that calls next() after sending) hands the request back.
    if (accessor !== undefined) accessor.holdRequest(req);
    else {
      // (Shared by the requests of a revision without file secrets; its release() then does nothing.)
      const view = this.#consistentReads ? callView(this.client) : undefined;
      accessor = new RequestVaneAccessor(this, view ?? this.client, this.#ab, req, view, last);
      // `req.vane` from now on; the request's revision is let go once its response is done (sent, or the connection gone).
      keepAccessor(req, res, accessor, this.#logger);
    }
    return accessor;
  }
}
