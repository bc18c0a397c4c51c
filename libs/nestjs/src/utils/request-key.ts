import type { ExecutionContext } from '@nestjs/common';

/**
 * The object that stands for "this request" in a context: the HTTP request,
 * or for other transports the first object argument (RPC data, WS client,
 * GraphQL root/context). Used as a WeakMap key; `undefined` disables caching.
 * @internal
 */
export function requestKeyOf(context: ExecutionContext): object | undefined {
  if (context.getType() === 'http') {
    const req: unknown = context.switchToHttp().getRequest();
    return typeof req === 'object' && req !== null ? req : undefined;
  }
  const args: unknown[] = context.getArgs();
  for (let i = args.length - 1; i >= 0; i--) {
    const arg = args[i];
    if (typeof arg === 'object' && arg !== null) return arg;
  }
  return undefined;
}
