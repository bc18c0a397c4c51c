/**
 * `GET /db`: the `@nestjs/config` interop. With `mirrorToConfigService: true`
 * (in `vane-options.factory.ts`) every Vane config is set into
 * `ConfigService`, live: code that already reads `configService.get('db.host')`
 * serves Vane's values without a change.
 */
import { Controller, Get } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';

@Controller('db')
export class DatabaseController {
  constructor(private readonly config: ConfigService) {}

  // #region interop
  @Get()
  settings(): { host: string | undefined; port: number | undefined; poolMax: number | undefined } {
    return {
      host: this.config.get<string>('db.host'),
      port: this.config.get<number>('db.port'),
      poolMax: this.config.get<number>('db.pool.max'),
    };
  }
  // #endregion interop
}
