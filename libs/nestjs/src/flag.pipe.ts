import { Injectable, type ArgumentMetadata, type ExecutionContext, type PipeTransform } from '@nestjs/common';
import type { FlagOptions } from './interfaces/flag-options.interface.js';
import { VaneRequestFlags } from './vane-request-flags.service.js';

/** What `@Flag()` hands to its pipe. @internal */
export interface FlagParamData extends FlagOptions {
  readonly key: string;
}

/**
 * Resolves a `@Flag()` parameter to a boolean; A/B flags share the request's
 * one batched call, and a cached answer is given synchronously.
 */
@Injectable()
export class FlagPipe implements PipeTransform<ExecutionContext, boolean | Promise<boolean>> {
  constructor(private readonly flags: VaneRequestFlags) {}

  /** @param context - the execution context, passed on by the `@Flag()` factory. */
  transform(context: ExecutionContext, metadata: ArgumentMetadata): boolean | Promise<boolean> {
    const { key, ab = false } = metadata.data as unknown as FlagParamData;
    const state = this.flags.stateNow(key, ab, context);
    return state instanceof Promise ? state.then((s) => s.on) : state.on;
  }
}
