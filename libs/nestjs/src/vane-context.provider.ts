import type { ExecutionContext, Provider } from '@nestjs/common';
import type { AbContext } from '@vane/client';
import type { VaneContextFactory } from './interfaces/vane-context-factory.interface.js';
import type { VaneModuleOptions } from './interfaces/vane-module-options.interface.js';
import { userOf } from './request-context.js';
import { VANE_CONTEXT_FACTORY, VANE_MODULE_OPTIONS } from './vane.constants.js';

/**
 * The default {@link VaneContextFactory}: the user id is `user.id` (or
 * `user.sub`, as JWT strategies set it) when it is a non-empty string or a
 * number; no attributes. "The user" is found on every transport by
 * {@link userOf}: `request.user` over HTTP (Express or Fastify) and GraphQL,
 * the message data's `user` in a microservice, the client's `user` on a
 * WebSocket.
 */
export const defaultVaneContextFactory: VaneContextFactory = (context: ExecutionContext): AbContext | null => {
  const user = userOf(context) as { id?: unknown; sub?: unknown } | null | undefined;
  if (typeof user !== 'object' || user === null) return null;
  const id = user.id ?? user.sub;
  if (typeof id === 'number' && Number.isFinite(id)) return { userId: String(id) };
  return typeof id === 'string' && id !== '' ? { userId: id } : null;
};

/**
 * The context factory in use: `abContext` from the options, else
 * {@link defaultVaneContextFactory}. One that throws or rejects fails closed
 * in `RequestAbEvaluation` (the rule of every adapter): the request is
 * anonymous, with one warning. @internal
 */
export const vaneContextFactoryProvider: Provider = {
  provide: VANE_CONTEXT_FACTORY,
  useFactory: (options: VaneModuleOptions): VaneContextFactory => options.abContext ?? defaultVaneContextFactory,
  inject: [VANE_MODULE_OPTIONS],
};
