/**
 * Options of the Vane plugin: the client's (or a client), plus the Fastify ones.
 *
 * @packageDocumentation
 */
import type { AbContext, FlagKey, VaneClient, VaneClientOptions, VaneErrorCode, VaneLogger } from '@vane/client';
import type { RegisteredSchema } from '@vane/client/adapter';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FlagDenial } from '@vane/client/adapter';

/**
 * Builds the A/B user context of a request: a stable user id and string
 * attributes (e.g. from `request.user` or headers). Called at most once per
 * request, and only when the request needs an A/B evaluation. Return `null`
 * when the request has no user (anonymous): every A/B flag is then off for
 * it and nothing is sent. If it throws, the request's A/B flags fail closed
 * (off, one warning logged), like any failed evaluation.
 *
 * @example
 * ```ts
 * const abContext: AbContextFactory = (request) =>
 *   request.headers['x-user-id'] ? { userId: String(request.headers['x-user-id']) } : null;
 * ```
 */
export type AbContextFactory = (request: FastifyRequest) => AbContext | null | Promise<AbContext | null>;

/**
 * Answers a request whose flag is off, in place of the default answer. It
 * must answer: `reply.send(…)`, or throw (reject) to go to Fastify's error
 * handling.
 */
export type FlagOffHandler = (request: FastifyRequest, reply: FastifyReply, denial: FlagDenial) => unknown;

/**
 * What a guard does when its flag is off or not defined. When several are
 * given, `handler` wins over `error`, which wins over `status`. With none,
 * the request gets Fastify's own not-found answer for its path
 * (`reply.callNotFound()`: your `setNotFoundHandler`, else Fastify's 404),
 * exactly as a path no route has.
 */
export interface FlagOffOptions {
  /**
   * Answer with this status and a JSON body `{ statusCode, message }` whose
   * message is the status's standard text (`"Forbidden"`, naming no flag).
   * @default none: the not-found answer of the path
   */
  readonly status?: number;
  /**
   * Builds an error that goes to Fastify's error handling instead of an
   * answer (your `setErrorHandler`, or Fastify's, which honours `statusCode`).
   * @default none
   */
  readonly error?: (denial: FlagDenial) => Error;
  /**
   * Answers the request yourself.
   * @default none
   */
  readonly handler?: FlagOffHandler;
}

/** Options of `app.vane.requireFlag()`. */
export interface RequireFlagOptions extends FlagOffOptions {
  /**
   * Evaluate the flags for the request's user through the A/B add-on
   * (`evaluate-ab`), with the context from the `abContext` option, instead
   * of reading their plain values. Every A/B guard of the route (and any
   * `request.vane.ab()` call) shares one evaluation per request.
   * @default false
   */
  readonly ab?: boolean;
}

/**
 * A route's flag requirement, given as the route option `config.vane`:
 * `{ config: { vane: { flags: 'new-checkout' } } }`. An array gives several
 * requirements (e.g. a plain flag and an A/B flag).
 */
export interface VaneRouteOptions extends RequireFlagOptions {
  /** The flag (or every flag of the array) that must be on for the route to answer. */
  readonly flags: FlagKey<RegisteredSchema> | readonly FlagKey<RegisteredSchema>[];
}

/** Options of the error handler the plugin sets (or `app.vane.errorHandler()` builds). */
export interface VaneErrorHandlerOptions {
  /**
   * Statuses to answer instead of the defaults, by code (e.g.
   * `{ VANE_SECRET_NOT_FOUND: 404 }`).
   * @default the table in the README: 500 for the app's own mistakes (a
   * missing secret, a public key reading secrets), 502/503/504 when the Vane
   * service cannot serve
   */
  readonly statuses?: Partial<Record<VaneErrorCode, number>>;
}

/** The options of the plugin that are not the client's. */
export interface VaneFastifyPluginOptions {
  /**
   * Builds the A/B user context of a request; required by A/B guards
   * (`ab: true`) and by `request.vane.ab()`.
   * @default none: an A/B guard is refused when it is registered, and `request.vane.ab()` rejects
   */
  readonly abContext?: AbContextFactory;
  /**
   * Default answer of every guard whose flag is off; a guard's own options replace it.
   * @default `{}`: the not-found answer of the path (`reply.callNotFound()`)
   */
  readonly flagOff?: FlagOffOptions;
  /**
   * The error handler set in the scope the plugin is registered in: Vane
   * errors get a status by code and a fixed JSON body; every other error
   * goes on to the error handler that was there before. `false` sets none
   * (set `app.vane.errorHandler()` yourself, where you want it).
   * @default true
   */
  readonly errorHandler?: boolean | VaneErrorHandlerOptions;
  /**
   * The startup check: once the app is ready, every flag key named by a
   * route (`config.vane`, or a `requireFlag()` guard in its hooks) that the
   * snapshot does not define is logged as a warning, by name. `'off'` skips it.
   * @default 'log'
   */
  readonly startupCheck?: 'log' | 'off';
  /**
   * One revision per request: from the request's arrival (the plugin's
   * `onRequest` hook) until its response closes, `request.vane` reads,
   * guard decisions, and `app.vane.client` reads made while the request's
   * hooks and handler run (the services they call, OpenFeature on the
   * client) answer from a view of the revision served when the request
   * arrived, even if changes land meanwhile. `false`: every read is live. How long a
   * revision may be held: the client's `pinMaxAgeMs`.
   * @default true
   */
  readonly consistentReads?: boolean;
  /**
   * Where Vane logs: the client (when the plugin creates it), failed A/B
   * evaluations, the startup check, the error handler.
   * @default the app's logger (`app.log`, pino; `request.log` for a request's lines)
   */
  logger?: VaneLogger;
}

/** Options that make the plugin create the client: every option of `VaneClient.create`, passed through. */
export interface VaneFastifyClientOptions extends VaneClientOptions, VaneFastifyPluginOptions {
  /** Not with the client's options: give either the options or a client. */
  readonly client?: undefined;
  /** Only with `client`. */
  readonly closeClient?: undefined;
}

/** Options that hand the plugin a client of yours instead. */
export interface VaneFastifyExistingClientOptions extends VaneFastifyPluginOptions {
  /** A client made with `VaneClient.create()` (its initial sync done). */
  readonly client: VaneClient;
  /**
   * Close the client when the app closes, as for a client the plugin made.
   * @default false: whoever made the client closes it
   */
  readonly closeClient?: boolean;
}

/**
 * Options of the Vane plugin: the client's options (`baseUrl`, `apiKey`,
 * `ttlMs`, …: the plugin creates the client, runs its blocking initial sync
 * and closes it with the app), or `{ client }`; plus the Fastify options.
 */
export type VaneFastifyOptions = VaneFastifyClientOptions | VaneFastifyExistingClientOptions;
