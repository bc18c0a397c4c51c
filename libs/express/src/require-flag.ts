/**
 * `vane.requireFlag()`: a route guard that lets a request through only when
 * its flag (or flags) is on.
 *
 * @packageDocumentation
 */
import { STATUS_CODES } from 'node:http';
import type { VaneClient, VaneLogger } from '@vane/client';
import {
  checkFlagKeys,
  checkFlagOffOptions as checkOffOptions,
  flagDenialOf,
  runStartupCheck,
} from '@vane/client/adapter';
import { InvalidArgumentError } from '@vane/client/errors';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AbGuardRegistry } from './ab-batch.js';
import type { RequestVaneAccessor } from './request-vane.accessor.js';
import type { FlagDenial, FlagOffOptions } from './vane-express.options.js';

/** Options of `vane.requireFlag()`. */
export interface RequireFlagOptions extends FlagOffOptions {
  /**
   * Evaluate the flag for the request's user through the A/B add-on
   * (`evaluate-ab`), with the context from the `abContext` option, instead
   * of reading its plain value. Every A/B guard of the route (and any
   * `req.vane.ab()` call) shares one evaluation per request.
   * @default false
   */
  readonly ab?: boolean;
}

/** What a guard needs from its `VaneExpress`. Internal. */
export interface FlagGuardDeps {
  readonly client: VaneClient;
  readonly registry: AbGuardRegistry;
  readonly hasAbContext: boolean;
  readonly flagOff: FlagOffOptions | undefined;
  readonly logger: VaneLogger;
  /** The request's `req.vane` (made with the request's revision on its first Vane touch). */
  accessorFor(req: Request, res: Response): RequestVaneAccessor;
}

/** Validates a `flagOff` option. @throws InvalidArgumentError */
export function checkFlagOffOptions(options: FlagOffOptions | undefined): void {
  checkOffOptions(options, 'flagOff');
}

/** The part of Express's `req.route` (Express 4 and 5) that tells which handlers the route has. */
interface RouteOfRequest {
  readonly stack?: readonly { readonly handle?: unknown }[];
}

/**
 * Lets the request go on as if the guarded route did not exist: in a route
 * (`app.get(path, guard, handler)`) `next('route')` skips the rest of it, so
 * a later route of the same path, the app's own 404 handler or Express's
 * final 404 answers, exactly as for a path no route has. As middleware
 * (`router.use(guard)`, `app.use(prefix, guard)`) there is no route to skip:
 * `next('router')` leaves the router the guard is mounted on.
 */
function fallThrough(guard: RequestHandler, req: Request, next: NextFunction): void {
  const route = req.route as RouteOfRequest | undefined;
  next(route?.stack?.some((layer) => layer.handle === guard) === true ? 'route' : 'router');
}

function deny(
  off: FlagOffOptions,
  guard: RequestHandler,
  req: Request,
  res: Response,
  next: NextFunction,
  denial: FlagDenial,
): void {
  if (off.handler) return off.handler(req, res, next, denial);
  if (off.error) return next(off.error(denial));
  if (off.status === undefined) return fallThrough(guard, req, next);
  res.status(off.status).json({ statusCode: off.status, message: STATUS_CODES[off.status] ?? 'Error' });
}

/**
 * Builds the guard middleware. Plain guards read the snapshot synchronously;
 * A/B guards are registered so that the first A/B guard of a route
 * evaluates the keys of them all in one call.
 */
export function createFlagGuard(
  deps: FlagGuardDeps,
  keys: string | readonly string[],
  options: RequireFlagOptions = {},
): RequestHandler {
  const list = checkFlagKeys(keys, 'requireFlag');
  // The startup check of the other adapters: a typo is a warning now, not a silent 404 later.
  runStartupCheck(
    deps.client,
    list.map((key) => ({ key, where: `requireFlag(${JSON.stringify(key)})` })),
    deps.logger,
  );
  if (typeof options !== 'object' || options === null)
    throw new InvalidArgumentError('requireFlag: options must be an object');
  checkOffOptions(options, 'requireFlag');
  const own = options.status !== undefined || options.error !== undefined || options.handler !== undefined;
  const off: FlagOffOptions = own ? options : (deps.flagOff ?? {});
  const ab = options.ab === true;
  if (ab && !deps.hasAbContext)
    throw new InvalidArgumentError(
      'requireFlag(…, { ab: true }): give createVane() an abContext option to tell the user of a request',
    );

  // Guards read through the request's accessor: the revision the request is pinned to.
  if (!ab) {
    const plain: RequestHandler = function vaneFlagGuard(req, res, next) {
      const reader = deps.accessorFor(req, res);
      for (const key of list) {
        // A feature_flag.evaluation event on the request's span, when the app traces.
        deps.client.telemetry.recordFlag(key);
        if (!reader.flag(key)) return deny(off, plain, req, res, next, flagDenialOf(reader, key, ab));
      }
      reader.continue(next);
    };
    return plain;
  }

  // A returning user's answers are all cached: decided at once, with no promise.
  const guard: RequestHandler = function vaneAbFlagGuard(req, res, next) {
    const reader = deps.accessorFor(req, res);
    const offKey = reader.abEvaluation.offKey(list);
    if (offKey === null) return reader.continue(next);
    if (typeof offKey === 'string') return deny(off, guard, req, res, next, flagDenialOf(reader, offKey, ab));
    offKey.then(
      (key) => {
        if (key === null) return reader.continue(next);
        try {
          deny(off, guard, req, res, next, flagDenialOf(reader, key, ab));
        } catch (err) {
          // A user handler that throws here is outside Express's own try/catch.
          next(err);
        }
      },
      (err: unknown) => next(err),
    );
  };
  deps.registry.set(guard, list);
  return guard;
}
