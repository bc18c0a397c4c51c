import { applyDecorators, UseGuards } from '@nestjs/common';
import type { FlagKey } from '@vane/client';
import { checkFlagKeys, type RegisteredSchema } from '@vane/client/adapter';
import { FeatureFlagRequirement } from './feature-flag.metadata.js';
import { FeatureFlagGuard } from './feature-flag.guard.js';
import type { FeatureFlagOptions } from './interfaces/feature-flag-options.interface.js';

/**
 * Serves a handler, or every handler of a controller, only while a flag is
 * on; otherwise the request gets a 404 (or the module's / the option's
 * `exception`). The handler's decorator wins over the controller's. Several
 * keys must all be on. Applies {@link FeatureFlagGuard} (a real guard: it
 * runs before interceptors and pipes) and records {@link FeatureFlagRequirement}.
 *
 * @param key - the flag's key, or several keys that must all be on.
 * @param options - `ab: true` evaluates for the requesting user (batched per request); `exception` changes the refusal.
 *
 * @example
 * ```ts
 * @FeatureFlag('new-checkout')
 * @Post('checkout')
 * checkout() { … }
 *
 * @FeatureFlag('new-pricing', { ab: true, exception: 403 })
 * @Get('pricing')
 * pricing() { … }
 * ```
 */
export function FeatureFlag(
  key: FlagKey<RegisteredSchema> | readonly FlagKey<RegisteredSchema>[],
  options: FeatureFlagOptions = {},
): ClassDecorator & MethodDecorator {
  // The key rule of every adapter, checked where the guard is declared (InvalidArgumentError).
  const keys = [...checkFlagKeys(key, '@FeatureFlag()')];
  return applyDecorators(FeatureFlagRequirement({ ...options, keys }), UseGuards(FeatureFlagGuard));
}
