/**
 * One request's A/B evaluations: every A/B key the request needs in as few
 * evaluate-ab calls as possible (one, for the guards of a route).
 *
 * @packageDocumentation
 */
import {
  InvalidArgumentError,
  RequestAbEvaluation,
  type AbContext,
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
 * Why an `abContext` function threw, as the failure of the evaluation it
 * was called for: the request's A/B flags fail closed, and the one warning
 * `RequestAbEvaluation` logs (redacted) says what happened.
 */
class AbContextFailure extends Error {
  constructor(cause: unknown) {
    super(`abContext threw ${cause instanceof Error ? `${cause.name}: ${cause.message}` : typeof cause}`, { cause });
    this.name = 'AbContextFailure';
  }
}

/**
 * The A/B memo of one request: `RequestAbEvaluation` from `@vane/client`
 * (the one every adapter uses), planned with the keys of the route's A/B
 * guards. A failed call, or an `abContext` that throws, fails closed (its
 * keys are `false`, one warning is logged); without an `abContext` option it
 * rejects with `InvalidArgumentError`, after the client closed with `ClientClosedError`.
 */
export function requestAbEvaluation(
  client: VaneClient,
  request: FastifyRequest,
  factory: AbContextFactory | undefined,
  logger: VaneLogger,
): (keys: readonly string[]) => Promise<AbResults> {
  const failures = new WeakMap<AbContext, unknown>();
  const evaluation = new RequestAbEvaluation({
    evaluate: (keys, context) => {
      const failure = failures.get(context);
      return failure === undefined ? client.evaluateAb(keys, context) : Promise.reject(failure);
    },
    context: async () => {
      if (!factory)
        throw new InvalidArgumentError(
          'request.vane.ab(): give the Vane plugin an abContext option to evaluate A/B flags',
        );
      try {
        return await factory(request);
      } catch (err) {
        // Fails closed like any other failed evaluation: a context that stands for the failure.
        const failed: AbContext = { userId: 'abContext failed' };
        failures.set(failed, new AbContextFailure(err));
        return failed;
      }
    },
    plannedKeys: () => routeAbKeys(request),
    logger,
  });
  return (keys) => evaluation.evaluate(keys);
}
