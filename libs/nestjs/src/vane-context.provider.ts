import type { ExecutionContext, Provider } from '@nestjs/common';
import type { AbContext, VaneLogger } from '@vane/client';
import type { VaneContextFactory } from './interfaces/vane-context-factory.interface.js';
import type { VaneModuleOptions } from './interfaces/vane-module-options.interface.js';
import { transportOf, userOf } from './request-context.js';
import { VANE_CONTEXT_FACTORY, VANE_LOGGER, VANE_MODULE_OPTIONS } from './vane.constants.js';

/**
 * The default {@link VaneContextFactory}: the user id is `user.id` (or
 * `user.sub`, as JWT strategies set it) when it is a non-empty string or a
 * number; no attributes. "The user" is found on every transport by
 * {@link userOf}: `request.user` over HTTP (Express or Fastify) and GraphQL,
 * the message data's `user` in a microservice, the client's `user` on a
 * WebSocket.
 */
export const defaultVaneContextFactory: VaneContextFactory = (context: ExecutionContext): AbContext | undefined => {
  const user = userOf(context) as { id?: unknown; sub?: unknown } | null | undefined;
  if (typeof user !== 'object' || user === null) return undefined;
  const id = user.id ?? user.sub;
  if (typeof id === 'number' && Number.isFinite(id)) return { userId: String(id) };
  return typeof id === 'string' && id !== '' ? { userId: id } : undefined;
};

/**
 * Wraps a context factory so that it fails closed: a factory that throws or
 * rejects makes the request anonymous (its A/B flags off), with one warning
 * naming the transport and the error, instead of failing the request.
 * @internal
 */
export function failClosed(factory: VaneContextFactory, logger: Pick<VaneLogger, 'warn'>): VaneContextFactory {
  const warn = (context: ExecutionContext, err: unknown): undefined => {
    const code = (err as { code?: unknown } | null)?.code;
    logger.warn(
      `abContext failed on a ${transportOf(context)} request${typeof code === 'string' ? ` (${code})` : ''}, treating it as anonymous (its A/B flags are off): ${err instanceof Error ? err.message : String(err)}`,
    );
    return undefined;
  };
  return (context) => {
    try {
      const result = factory(context);
      if (typeof (result as PromiseLike<unknown> | undefined)?.then !== 'function') return result;
      return Promise.resolve(result).catch((err: unknown) => warn(context, err));
    } catch (err) {
      return warn(context, err);
    }
  };
}

/** The context factory in use: `abContext` from the options, else {@link defaultVaneContextFactory}; it fails closed. @internal */
export const vaneContextFactoryProvider: Provider = {
  provide: VANE_CONTEXT_FACTORY,
  useFactory: (options: VaneModuleOptions, logger: VaneLogger): VaneContextFactory =>
    failClosed(options.abContext ?? defaultVaneContextFactory, logger),
  inject: [VANE_MODULE_OPTIONS, VANE_LOGGER],
};
