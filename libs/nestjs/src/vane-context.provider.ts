import type { ExecutionContext, Provider } from '@nestjs/common';
import type { AbContext } from '@vane/client';
import type { VaneContextFactory } from './interfaces/vane-context-factory.interface.js';
import type { VaneModuleOptions } from './interfaces/vane-module-options.interface.js';
import { VANE_CONTEXT_FACTORY, VANE_MODULE_OPTIONS } from './vane.constants.js';

/**
 * The default {@link VaneContextFactory}: the user id is `request.user.id`
 * (or `request.user.sub`, as JWT strategies set it) when it is a non-empty
 * string or a number; no attributes. HTTP only; other transports are anonymous.
 */
export const defaultVaneContextFactory: VaneContextFactory = (context: ExecutionContext): AbContext | undefined => {
  if (context.getType() !== 'http') return undefined;
  const user = context.switchToHttp().getRequest<{ user?: { id?: unknown; sub?: unknown } }>().user;
  const id = user?.id ?? user?.sub;
  if (typeof id === 'number' && Number.isFinite(id)) return { userId: String(id) };
  return typeof id === 'string' && id !== '' ? { userId: id } : undefined;
};

/** The context factory in use: `abContext` from the options, else {@link defaultVaneContextFactory}. @internal */
export const vaneContextFactoryProvider: Provider = {
  provide: VANE_CONTEXT_FACTORY,
  useFactory: (options: VaneModuleOptions): VaneContextFactory => options.abContext ?? defaultVaneContextFactory,
  inject: [VANE_MODULE_OPTIONS],
};
