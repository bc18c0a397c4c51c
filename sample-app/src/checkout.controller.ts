/**
 * `GET /checkout`: a route behind a feature flag. While `new-checkout` is off
 * the guard answers 404 (as if the route did not exist); flip it in the admin
 * API and the next request changes its answer, without a restart.
 */
import { Controller, Get } from '@nestjs/common';
import { FeatureFlag } from '@vane/nestjs';

// #region guard
@Controller('checkout')
export class CheckoutController {
  @FeatureFlag('new-checkout')
  @Get()
  checkout(): { checkout: string } {
    return { checkout: 'new' };
  }
}
// #endregion guard
