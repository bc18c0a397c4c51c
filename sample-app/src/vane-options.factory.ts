/**
 * The sample's Vane options, built from `@nestjs/config`'s `ConfigService`
 * (so from the environment or a `.env` file). The defaults are the demo seed
 * of the local server that `npm start` runs.
 */
import type { ConfigService } from '@nestjs/config';
import type { VaneModuleOptions } from '@vane/nestjs';
import { abContextFromRequest } from './ab-context.factory.js';

/** Base URL of the demo seed's `shop` service on the local server (`npm start`). */
export const DEMO_BASE_URL = 'http://shop.localhost:4400';
/** Secret key of the demo seed's `shop` service: a loopback demo key, not a real one. */
export const DEMO_API_KEY = 'svs_shop_local_secret';

/**
 * The `useFactory` of `VaneModule.forRootAsync()`: `VANE_BASE_URL` and
 * `VANE_API_KEY` (demo seed when unset), the A/B context from the request,
 * and every config mirrored into `ConfigService`.
 */
// #region options
export function createVaneOptions(config: ConfigService): VaneModuleOptions {
  return {
    baseUrl: config.get<string>('VANE_BASE_URL') || DEMO_BASE_URL,
    apiKey: config.get<string>('VANE_API_KEY') || DEMO_API_KEY,
    abContext: abContextFromRequest,
    // The @nestjs/config interop line: `configService.get('db.host')` now answers Vane's live value.
    mirrorToConfigService: true,
  };
}
// #endregion options
