/**
 * Options of {@link createVane}: the client's, plus the Express ones.
 *
 * @packageDocumentation
 */
import type { AbContext, VaneClientOptions } from '@vane/client';
import type { FlagDenial } from '@vane/client/adapter';
import type { NextFunction, Request, Response } from 'express';

/**
 * Builds the A/B user context of a request: a stable user id and string
 * attributes (e.g. from the session or from headers). Called at most once
 * per request, and only when the request needs an A/B evaluation. Return
 * `null` when the request has no user (e.g. anonymous): every A/B flag is
 * then off for it and nothing is sent. An exception it throws goes to
 * `next()` unchanged.
 *
 * @example
 * ```ts
 * const abContext: AbContextFactory = (req) =>
 *   req.user ? { userId: req.user.id, attributes: { country: req.get('x-country') } } : null;
 * ```
 */
export type AbContextFactory = (req: Request) => AbContext | null | Promise<AbContext | null>;

/** Why a guard refused a request (the shape every Vane adapter gives), as a {@link FlagOffHandler} or an `error` factory gets it. */
export type { FlagDenial };

/**
 * Answers a request whose flag is off: send a response, or call
 * `next(error)`. It takes the place of the default answer.
 */
export type FlagOffHandler = (req: Request, res: Response, next: NextFunction, denial: FlagDenial) => void;

/**
 * What a guard does when its flag is off or not defined. When several are
 * given, `handler` wins over `error`, which wins over `status`. With none,
 * the request falls through to the app's own 404 handling: the route looks
 * absent, answered exactly like a path no route has.
 */
export interface FlagOffOptions {
  /**
   * Answer with this status and a JSON body `{ statusCode, message }` whose
   * message is the status's standard text (`"Not Found"`, naming no flag),
   * instead of falling through: `{ status: 404 }` gives a JSON 404.
   * @default none: the request falls through to the app's 404 handling
   * (`next('route')` in a route, `next('router')` as router middleware)
   */
  readonly status?: number;
  /**
   * Builds an error passed to `next()` instead of answering (to use your
   * app's own error handling).
   * @default none
   */
  readonly error?: (denial: FlagDenial) => Error;
  /**
   * Answers the request yourself.
   * @default none
   */
  readonly handler?: FlagOffHandler;
}

/**
 * Options of {@link createVane}: every option of `VaneClient.create`
 * (`baseUrl`, `apiKey`, `ttlMs`, `stream`, `logger`, …, passed through
 * unchanged) plus the Express ones below.
 */
export interface VaneExpressOptions extends VaneClientOptions {
  /**
   * Builds the A/B user context of a request; required by the A/B guards
   * (`requireFlag(key, { ab: true })`) and by `req.vane.ab()`.
   * @default none: A/B guards cannot be created, and `req.vane.ab()` rejects
   */
  abContext?: AbContextFactory;
  /**
   * Default answer of every guard whose flag is off; a guard's own options
   * replace it.
   * @default `{}`: the request falls through to the app's own 404 handling
   */
  flagOff?: FlagOffOptions;
  /**
   * One revision per request: from `vane.middleware()` (or the first guard,
   * when no middleware runs before it) until the response closes, `req.vane`
   * reads, guard decisions, and `vane.client` reads made in the rest of the
   * request's chain (the services its handlers call, OpenFeature on the
   * client) answer from a view of the revision served when the request
   * began, even if changes land meanwhile. `false`: every read is live. How long a
   * revision may be held: the client's `pinMaxAgeMs`.
   * @default true
   */
  consistentReads?: boolean;
}
