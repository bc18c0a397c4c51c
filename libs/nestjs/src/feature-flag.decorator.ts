import { applyDecorators, UseGuards } from '@nestjs/common';
import type { FlagKey, RegisteredSchema } from '@vane/client';
import { FeatureFlagRequirement } from './feature-flag.metadata.js';
import { FeatureFlagGuard } from './feature-flag.guard.js';
import type { FeatureFlagOptions } from './interfaces/feature-flag-options.interface.js';
import { assertKey } from './utils/param-metadata.js';

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
  const keys = typeof key === 'string' ? [key] : [...key];
  if (keys.length === 0) throw new TypeError('@FeatureFlag() needs at least one key');
  for (const k of keys) assertKey('FeatureFlag', k);
  return applyDecorators(FeatureFlagRequirement({ ...options, keys }), UseGuards(FeatureFlagGuard));
}
