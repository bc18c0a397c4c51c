import type { ExecutionContext } from '@nestjs/common';
import { callKeyOf } from '../request-context.js';

/**
 * The object that stands for "this request" in a context, used as a WeakMap
 * key; `undefined` disables caching. See {@link callKeyOf}, the one place
 * that knows every transport.
 * @internal
 */
export function requestKeyOf(context: ExecutionContext): object | undefined {
  return callKeyOf(context);
}
