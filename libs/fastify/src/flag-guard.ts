/**
 * Flag guards: hooks that let a request through only when its flags are on.
 *
 * @packageDocumentation
 */
import { STATUS_CODES } from 'node:http';
import type { VaneClient, VaneReader } from '@vane/client';
import {
  checkFlagKeys,
  checkFlagOffOptions,
  flagDenialOf,
  type FlagDenial,
  type RequestAbMemo,
} from '@vane/client/adapter';
import { InvalidArgumentError } from '@vane/client/errors';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { FlagOffOptions, RequireFlagOptions } from './vane-fastify.options.js';

/**
 * A flag guard: a Fastify hook, for `onRequest`, `preValidation` or
 * `preHandler` (route option, or `addHook()` for a whole scope).
 */
export type VaneFlagGuard = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

/** What the plugin knows of a guard it made: its keys and whether they are A/B. */
export interface GuardInfo {
  readonly keys: readonly string[];
  readonly ab: boolean;
}

/** What a guard needs from its plugin. Internal. */
export interface FlagGuardDeps {
  readonly client: VaneClient;
  /** What a request's guard reads: the revision the request is pinned to (`request.vane`). */
  readerFor(request: FastifyRequest): VaneReader;
  readonly hasAbContext: boolean;
  readonly flagOff: FlagOffOptions | undefined;
  /** The request's A/B memo (the one behind `request.vane.ab()`). */
  abOf(request: FastifyRequest): RequestAbMemo;
}

/** Validates flag-off options: the rule of every adapter, from `@vane/client`. */
export { checkFlagOffOptions };

/** Answers a refused request as `off` says; `done` is called only to hand an error on. */
function deny(
  off: FlagOffOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  done: HookHandlerDoneFunction,
  denial: FlagDenial,
): void {
  if (off.handler) {
    let answered: unknown;
    try {
      answered = off.handler(request, reply, denial);
    } catch (err) {
      return done(err as Error);
    }
    if (answered instanceof Promise) answered.catch((err: unknown) => done(err as Error));
    return;
  }
  if (off.error) return done(off.error(denial));
  if (off.status === undefined) {
    // The path's own not-found answer: the scope's setNotFoundHandler, else Fastify's 404.
    reply.callNotFound();
    return;
  }
  void reply.code(off.status).send({ statusCode: off.status, message: STATUS_CODES[off.status] ?? 'Error' });
}

/**
 * Builds a guard. A plain guard reads the snapshot synchronously; an A/B
 * guard asks the request's A/B memo, which sends every A/B key of the route
 * in one call.
 *
 * @throws InvalidArgumentError - at once, for a bad key or option, or `ab` without an `abContext` option.
 */
export function createFlagGuard(
  deps: FlagGuardDeps,
  keys: string | readonly string[],
  options: RequireFlagOptions = {},
  where = 'requireFlag',
): { guard: VaneFlagGuard; info: GuardInfo } {
  const list = checkFlagKeys(keys, where);
  checkFlagOffOptions(options, where);
  const own = options.status !== undefined || options.error !== undefined || options.handler !== undefined;
  const off: FlagOffOptions = own ? options : (deps.flagOff ?? {});
  const ab = options.ab === true;
  if (ab && !deps.hasAbContext)
    throw new InvalidArgumentError(
      `${where}: an A/B flag guard (ab: true) needs the Vane plugin's abContext option, to tell the user of a request`,
    );
  const { client } = deps;

  if (!ab) {
    const plain: VaneFlagGuard = function vaneFlagGuard(request, reply, done) {
      const reader = deps.readerFor(request);
      for (const key of list) {
        client.telemetry.recordFlag(key); // a feature_flag.evaluation event on the request's span, when tracing
        if (!reader.flag(key)) return deny(off, request, reply, done, flagDenialOf(reader, key, ab));
      }
      done();
    };
    return { guard: plain, info: { keys: list, ab } };
  }

  const refuse = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction, key: string): void => {
    try {
      deny(off, request, reply, done, flagDenialOf(deps.readerFor(request), key, ab));
    } catch (err) {
      done(err as Error);
    }
  };
  // A returning user's answers are all cached: decided at once, with no promise.
  const guard: VaneFlagGuard = function vaneAbFlagGuard(request, reply, done) {
    const offKey = deps.abOf(request).offKey(list);
    if (offKey === null) return done();
    if (typeof offKey === 'string') return refuse(request, reply, done, offKey);
    offKey.then(
      (key) => (key === null ? done() : refuse(request, reply, done, key)),
      (err: unknown) => done(err as Error),
    );
  };
  return { guard, info: { keys: list, ab } };
}
