import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FlagKey } from '@vane/client';
import type { RegisteredSchema } from '@vane/client/adapter';
import { FlagPipe, type FlagParamData } from './flag.pipe.js';
import type { FlagOptions } from './interfaces/flag-options.interface.js';
import { assertKey, recordParam } from './utils/param-metadata.js';

const FlagParam = createParamDecorator((_data: FlagParamData, context: ExecutionContext): ExecutionContext => context);

/**
 * Injects a flag's state for this request as a boolean (`false` when the
 * flag is not defined). With `{ ab: true }` the flag is evaluated for the
 * requesting user, in the same single `evaluate-ab` call as every other A/B
 * flag of the request (the guard's included).
 *
 * @example
 * ```ts
 * @Get('pricing')
 * pricing(@Flag('new-pricing', { ab: true }) newPricing: boolean, @Flag('dark-mode') dark: boolean) { … }
 * ```
 */
export function Flag(key: FlagKey<RegisteredSchema>, options: FlagOptions = {}): ParameterDecorator {
  assertKey('Flag', key);
  const decorate = FlagParam({ ...options, key }, FlagPipe);
  return (target, propertyKey, index) => {
    recordParam(target, propertyKey, { kind: 'flag', key, index, options });
    decorate(target, propertyKey, index);
  };
}
