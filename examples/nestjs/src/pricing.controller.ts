// The README's A/B route, whole. `npm run test:newcomer` adds it to the quick-start app.
// #region pricing-controller
import { Controller, Get } from '@nestjs/common';
import { FeatureFlag, Flag, VaneClient } from '@vane/nestjs';

@Controller('pricing')
export class PricingController {
  constructor(private readonly vane: VaneClient) {}

  // Behind an A/B flag, decided per user by the service's rule: 404 for users outside it, and for anonymous ones.
  @FeatureFlag('new-pricing', { ab: true })
  @Get()
  pricing(): { pricing: string; discount: number } {
    return { pricing: 'new', discount: this.vane.config('pricing.discount', 0) };
  }

  // Always 200: the same per-user decision as a parameter (one evaluate-ab call per request, whatever the count).
  @Get('variant')
  variant(@Flag('new-pricing', { ab: true }) newPricing: boolean): { variant: string } {
    return { variant: newPricing ? 'new' : 'classic' };
  }
}
// #endregion pricing-controller
