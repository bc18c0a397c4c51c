import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FeatureFlagMetadata } from './interfaces/feature-flag-options.interface.js';

/**
 * The typed metadata behind `@FeatureFlag()`, made with
 * `Reflector.createDecorator`. Read it in your own guards with
 * `reflector.getAllAndOverride(FeatureFlagRequirement, [context.getHandler(), context.getClass()])`.
 */
export const FeatureFlagRequirement = Reflector.createDecorator<FeatureFlagMetadata>({ key: 'VANE:FEATURE_FLAG' });

/**
 * The requirement `@FeatureFlag()` records for the handler of `context`: the
 * handler's, else its controller's. What `FeatureFlagGuard.getRequirement()`
 * reads unless a subclass overrides it.
 */
export function featureFlagRequirementOf(
  reflector: Reflector,
  context: ExecutionContext,
): FeatureFlagMetadata | undefined {
  return reflector.getAllAndOverride(FeatureFlagRequirement, [context.getHandler(), context.getClass()]);
}
