import { Injectable, type ArgumentMetadata, type ExecutionContext, type PipeTransform } from '@nestjs/common';
import type { FlagOptions } from './interfaces/flag-options.interface.js';
import { VaneRequestFlags } from './vane-request-flags.service.js';

/** What `@Flag()` hands to its pipe. @internal */
export interface FlagParamData extends FlagOptions {
  readonly key: string;
}

/** Resolves a `@Flag()` parameter to a boolean; A/B flags share the request's one batched call. */
@Injectable()
export class FlagPipe implements PipeTransform<ExecutionContext, Promise<boolean>> {
  constructor(private readonly flags: VaneRequestFlags) {}

  /** @param context - the execution context, passed on by the `@Flag()` factory. */
  async transform(context: ExecutionContext, metadata: ArgumentMetadata): Promise<boolean> {
    const { key, ab = false } = metadata.data as unknown as FlagParamData;
    return (await this.flags.state(key, ab, context)).on;
  }
}
