/**
 * One request's A/B evaluations: every A/B key the request needs in as few
 * evaluate-ab calls as possible (one, for the guards of a route).
 *
 * @packageDocumentation
 */
import {
  InvalidArgumentError,
  RequestAbEvaluation,
  type AbResults,
  type VaneClient,
  type VaneLogger,
} from '@vane/client';
import type { FastifyRequest } from 'fastify';
import type { AbContextFactory } from './vane-fastify.options.js';

/** The key under which the plugin leaves a route's A/B guard keys in its `config`. */
export const ROUTE_AB_KEYS: unique symbol = Symbol.for('vane.fastify.route-ab-keys');

/** A route `config` as the plugin leaves it. */
interface ConfigWithAbKeys {
  readonly [ROUTE_AB_KEYS]?: readonly string[];
}

/**
 * The A/B keys of the guards on the route Fastify matched for `request`,
 * left in the route's config at registration (see `onRoute` in the plugin).
 */
function routeAbKeys(request: FastifyRequest): readonly string[] {
  const config = request.routeOptions.config as ConfigWithAbKeys | undefined;
  return config?.[ROUTE_AB_KEYS] ?? [];
}

/**
 * The A/B memo of one request: `RequestAbEvaluation` from `@vane/client`
 * (the one every adapter uses), planned with the keys of the route's A/B
 * guards. A failed call fails closed (its keys are `false`), an `abContext`
 * that throws makes the request anonymous (its A/B flags off); either logs one
 * warning (the rule of `RequestAbEvaluation`). Without an `abContext` option it
 * rejects with `InvalidArgumentError`, after the client closed with `ClientClosedError`.
 */
export function requestAbEvaluation(
  client: VaneClient,
  request: FastifyRequest,
  factory: AbContextFactory | undefined,
  logger: VaneLogger,
): (keys: readonly string[]) => Promise<AbResults> {
  if (!factory) {
    const missing = (): Promise<AbResults> =>
      Promise.reject(
        new InvalidArgumentError('request.vane.ab(): give the Vane plugin an abContext option to evaluate A/B flags'),
      );
    return missing;
  }
  const evaluation = new RequestAbEvaluation({
    evaluate: (keys, context) => client.evaluateAb(keys, context),
    // A context function that throws fails closed there: the request is anonymous, one warning.
    context: () => factory(request),
    plannedKeys: () => routeAbKeys(request),
    logger,
  });
  return (keys) => evaluation.evaluate(keys);
}
