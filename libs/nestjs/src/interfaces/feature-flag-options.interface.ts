import type { ExecutionContext } from '@nestjs/common';
import type { FlagDenial } from '@vane/client/adapter';

/** Why a `@FeatureFlag()` guard refused a request: the refusal shape of every Vane adapter (`FlagDenial` of `@vane/client`). */
export type FeatureFlagDenial = FlagDenial;

/**
 * What a refused request gets: `404` (a `NotFoundException`, the route looks
 * absent), `403` (a `ForbiddenException`), or a function that builds the
 * error to throw (any `HttpException`, or an error your filters handle).
 */
export type FeatureFlagException = 403 | 404 | ((denial: FeatureFlagDenial, context: ExecutionContext) => Error);

/** Options of `@FeatureFlag()`. */
export interface FeatureFlagOptions {
  /**
   * Evaluate the flag for the requesting user through the A/B add-on
   * (`evaluate-ab`), with the user context from the module's `abContext`.
   * All the A/B flags one request needs are sent in one call.
   * @default false (the flag's server-computed `is_active`)
   */
  readonly ab?: boolean;
  /**
   * What a refused request gets. Overrides the module's `flagException`.
   * @default the module's `flagException` (404)
   */
  readonly exception?: FeatureFlagException;
}

/** What `@FeatureFlag()` stores on a handler or controller (read with `Reflector`). */
export interface FeatureFlagMetadata extends FeatureFlagOptions {
  /** Flags that must all be on. */
  readonly keys: readonly string[];
}
