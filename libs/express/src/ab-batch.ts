/**
 * One request's A/B evaluations: a memo that sends every A/B key the
 * request needs in as few evaluate-ab calls as possible (one, for the
 * guards of a route).
 *
 * @packageDocumentation
 */
import {
  InvalidArgumentError,
  RequestAbEvaluation,
  type VaneClient,
  type VaneLogger,
  consoleLogger,
} from '@vane/client';
import type { Request } from 'express';
import type { AbContextFactory } from './vane-express.options.js';

/** The part of Express's routing a batch reads: the matched route's layers. */
interface RouteLayer {
  readonly method?: string;
  readonly handle?: unknown;
}

/**
 * Registry of the A/B guards of one `VaneExpress`: guard function → the
 * flag keys it checks. A batch looks the matched route's handlers up in it
 * to learn, before its first call, every A/B key the route will need.
 */
export type AbGuardRegistry = WeakMap<object, readonly string[]>;

/**
 * The A/B keys of the guards on the route Express matched for `req`, for
 * the request's method (HEAD runs the GET handlers, like Express does).
 * Express 4 and 5 both expose the route as `req.route`, with `stack` layers
 * carrying `method` and `handle`; anything else yields no key.
 */
export function routeAbKeys(req: Request, registry: AbGuardRegistry): string[] {
  const route = (req as { route?: { stack?: unknown; methods?: Record<string, boolean> } }).route;
  if (!route || !Array.isArray(route.stack)) return [];
  let method = req.method.toLowerCase();
  if (method === 'head' && !route.methods?.['head']) method = 'get';
  const keys: string[] = [];
  for (const layer of route.stack as RouteLayer[]) {
    if (layer.method !== undefined && layer.method !== method) continue;
    const handle = layer.handle;
    const guardKeys = typeof handle === 'function' ? registry.get(handle) : undefined;
    if (guardKeys) keys.push(...guardKeys);
  }
  return keys;
}

/**
 * The A/B memo of one request: `RequestAbEvaluation` from `@vane/client`
 * (the one `@vane/nestjs` uses too), planned with the keys of the route's
 * A/B guards. Each key is evaluated at most once; a call carries the keys
 * asked plus every key of the route's A/B guards not evaluated yet;
 * concurrent asks share calls. A failed call fails closed (its keys are
 * `false`, one warning is logged); an exception of the `abContext` function
 * itself, or no `abContext` option, rejects.
 */
export class AbBatch {
  readonly #evaluation: RequestAbEvaluation;

  constructor(
    client: VaneClient,
    req: Request,
    factory: AbContextFactory | undefined,
    registry: AbGuardRegistry,
    logger: VaneLogger = consoleLogger,
  ) {
    this.#evaluation = new RequestAbEvaluation({
      evaluate: (keys, context) => client.evaluateAb(keys, context),
      context: () => {
        if (!factory)
          throw new InvalidArgumentError('req.vane.ab(): give createVane() an abContext option to evaluate A/B flags');
        return factory(req);
      },
      plannedKeys: () => routeAbKeys(req, registry),
      logger,
    });
  }

  /** Evaluates `keys` for the request's user. @returns key → boolean for each key asked. */
  evaluate(keys: readonly string[]): Promise<Record<string, boolean>> {
    return this.#evaluation.evaluate(keys);
  }
}
