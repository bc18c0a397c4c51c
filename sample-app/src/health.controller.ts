/**
 * `GET /health`: `@nestjs/terminus` with Vane's health indicator. 200 `up`
 * while the live stream is connected (or polling keeps the snapshot fresh),
 * 503 `down` when billing is overdue, the client is closed or the snapshot
 * is too old.
 */
import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService, type HealthCheckResult } from '@nestjs/terminus';
import { VaneHealthIndicator } from '@vane/nestjs';

@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly vane: VaneHealthIndicator,
  ) {}

  @Get()
  @HealthCheck()
  check(): Promise<HealthCheckResult> {
    return this.health.check([() => this.vane.isHealthy('vane')]);
  }
}
