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

  @Get()
  settings(): { host: string | undefined; port: number; poolMax: number } {
    // ConfigService also writes what it is given to process.env, and reads process.env first: numbers may come back as strings.
    return { host: this.config.get<string>('db.host'), port: Number(this.config.get('db.port')), poolMax: Number(this.config.get('db.pool.max')) };
  }
}
