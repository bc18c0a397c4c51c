import { Reflector } from '@nestjs/core';
import type { FeatureFlagMetadata } from './interfaces/feature-flag-options.interface.js';

/**
 * The typed metadata behind `@FeatureFlag()`, made with
 * `Reflector.createDecorator`. Read it in your own guards with
 * `reflector.getAllAndOverride(FeatureFlagRequirement, [context.getHandler(), context.getClass()])`.
 */
export const FeatureFlagRequirement = Reflector.createDecorator<FeatureFlagMetadata>({ key: 'VANE:FEATURE_FLAG' });
