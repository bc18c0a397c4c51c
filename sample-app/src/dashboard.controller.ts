/**
 * `GET /dashboard`: a dark route. `beta-dashboard` is off in the demo seed, so
 * it answers 403 until the flag is turned on (a 403 rather than the default
 * 404, to show the `exception` option).
 */
import { Controller, Get } from '@nestjs/common';
import { FeatureFlag } from '@vane/nestjs';

@Controller('dashboard')
export class DashboardController {
  @FeatureFlag('beta-dashboard', { exception: 403 })
  @Get()
  dashboard(): { dashboard: string } {
    return { dashboard: 'beta' };
  }
}
