/**
 * One request's A/B evaluations: every A/B key the request needs in as few
 * evaluate-ab calls as possible (one, for the guards of a route).
 *
 * @packageDocumentation
 */
import type { VaneClient, VaneLogger } from '@vane/client';
import type { RequestAbEvaluationOptions } from '@vane/client/adapter';
import { InvalidArgumentError } from '@vane/client/errors';
import type { FastifyRequest } from 'fastify';
import { pinoVaneLogger } from './pino-vane-logger.js';
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
 * The A/B options of one plugin, shared by its requests: each request's
 * memo is a `RequestAbEvaluation` from `@vane/client` (the one every adapter
 * uses) made with them and the request, planned with the keys of the
 * route's A/B guards; answers the client has cached are given synchronously
 * (`client.evaluateAbCached`). A failed call fails closed (its keys are
 * `false`), an `abContext` that throws makes the request anonymous (its A/B
 * flags off); either logs one warning (the rule of `RequestAbEvaluation`),
 * to `logger` or else the request's own logger. Without an `abContext`
 * option it rejects with `InvalidArgumentError`, after the client closed
 * with `ClientClosedError`.
 */
export function fastifyAbOptions(
  client: VaneClient,
  factory: AbContextFactory | undefined,
  logger: VaneLogger | undefined,
): RequestAbEvaluationOptions<FastifyRequest> {
  return {
    evaluate: (keys, context) => client.evaluateAb(keys, context),
    cached: (keys, context) => client.evaluateAbCached(keys, context),
    // A context function that throws fails closed there: the request is anonymous, one warning.
    context: (request) => {
      if (!factory)
        throw new InvalidArgumentError(
          'request.vane.ab(): give the Vane plugin an abContext option to evaluate A/B flags',
        );
      return factory(request);
    },
    plannedKeys: routeAbKeys,
    logger: logger ?? ((request) => pinoVaneLogger(request.log)),
  };
}
