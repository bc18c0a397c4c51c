/**
 * One request's A/B evaluations: a memo that sends every A/B key the
 * request needs in as few evaluate-ab calls as possible (one, for the
 * guards of a route), and none for answers the client has cached.
 *
 * @packageDocumentation
 */
import type { VaneClient, VaneLogger } from '@vane/client';
import { type RequestAbEvaluationOptions, consoleLogger } from '@vane/client/adapter';
import { InvalidArgumentError } from '@vane/client/errors';
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
 * {@link routeAbKeys}, remembered per route and method (a route's handlers
 * are set when the app is built; a route whose stack grows is read again):
 * a request of a known route allocates nothing for its plan.
 */
function rememberedRouteAbKeys(registry: AbGuardRegistry): (req: Request) => readonly string[] {
  const known = new WeakMap<object, Map<string, { readonly layers: number; readonly keys: readonly string[] }>>();
  return (req) => {
    const route = (req as { route?: { stack?: unknown } }).route;
    if (!route || !Array.isArray(route.stack)) return routeAbKeys(req, registry);
    let byMethod = known.get(route);
    if (byMethod === undefined) known.set(route, (byMethod = new Map()));
    const remembered = byMethod.get(req.method);
    if (remembered !== undefined && remembered.layers === route.stack.length) return remembered.keys;
    const keys = routeAbKeys(req, registry);
    byMethod.set(req.method, { layers: route.stack.length, keys });
    return keys;
  };
}

/**
 * The A/B options of one `VaneExpress`, shared by its requests: each
 * request's memo is a `RequestAbEvaluation` from `@vane/client` (the one
 * every adapter uses) made with them and the request, planned with the keys
 * of the route's A/B guards. Each key is evaluated at most once; a call
 * carries the keys asked plus every key of the route's A/B guards not
 * evaluated yet; concurrent asks share calls; answers the client has cached
 * are given synchronously (`client.evaluateAbCached`). A failed call fails
 * closed (its keys are `false`, one warning is logged); an `abContext` that
 * throws makes the request anonymous (one warning); no `abContext` option
 * rejects with `InvalidArgumentError`.
 */
export function expressAbOptions(
  client: VaneClient,
  factory: AbContextFactory | undefined,
  registry: AbGuardRegistry,
  logger: VaneLogger = consoleLogger,
): RequestAbEvaluationOptions<Request> {
  return {
    evaluate: (keys, context) => client.evaluateAb(keys, context),
    cached: (keys, context) => client.evaluateAbCached(keys, context),
    context: (req) => {
      if (!factory)
        throw new InvalidArgumentError('req.vane.ab(): give createVane() an abContext option to evaluate A/B flags');
      return factory(req);
    },
    plannedKeys: rememberedRouteAbKeys(registry),
    logger,
  };
}
