import type { ExecutionContext } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';

/** A real Nest execution context of the given type (`http`, `graphql`, `rpc`, `ws`…) over the given handler arguments. */
export function contextOf(type: string, args: unknown[]): ExecutionContext {
  const host = new ExecutionContextHost(args);
  host.setType(type);
  return host;
}
