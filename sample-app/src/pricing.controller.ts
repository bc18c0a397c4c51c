/**
 * A/B flags, evaluated per user (`ab-context.factory.ts` reads the user id
 * and country from `x-user-id` / `x-country` or `?user=` / `?country=`).
 * In the demo seed `new-pricing` is on for every user in DE or FR and for
 * half of the others.
 */
import { Controller, Get } from '@nestjs/common';
import { FeatureFlag, Flag, VaneClient } from '@vane/nestjs';

@Controller('pricing')
export class PricingController {
  constructor(private readonly vane: VaneClient) {}

  /** `GET /pricing`: guarded by the A/B flag, 404 for a user outside the rollout (and for anonymous callers). */
  // #region ab
  @FeatureFlag('new-pricing', { ab: true })
  @Get()
  pricing(): { pricing: string; discount: number } {
    return { pricing: 'new', discount: this.vane.config('pricing.discount', 0) };
  }
  // #endregion ab

  /** `GET /pricing/variant`: always 200; the same A/B decision injected as a parameter. */
  @Get('variant')
  variant(@Flag('new-pricing', { ab: true }) newPricing: boolean): { variant: 'new' | 'classic' } {
    return { variant: newPricing ? 'new' : 'classic' };
  }
}
