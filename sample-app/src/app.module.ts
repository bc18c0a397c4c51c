/**
 * The sample's root module: `@nestjs/config` for the environment, Vane fed by
 * `ConfigService` through `forRootAsync`, terminus for the health endpoint,
 * and one controller per feature.
 */
import { Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { TerminusModule } from '@nestjs/terminus';
import { VaneModule } from '@vane/nestjs';
import { ChangeLogService } from './change-log.service.js';
import { CheckoutController } from './checkout.controller.js';
import { DashboardController } from './dashboard.controller.js';
import { DatabaseController } from './database.controller.js';
import { GreetingController } from './greeting.controller.js';
import { GreetingService } from './greeting.service.js';
import { HealthController } from './health.controller.js';
import { PaymentsController } from './payments.controller.js';
import { PricingController } from './pricing.controller.js';
import { TlsController } from './tls.controller.js';
import { createVaneOptions } from './vane-options.factory.js';

@Module({
  imports: [
    ConfigModule.forRoot(),
    // #region vane-module
    VaneModule.forRootAsync({
      isGlobal: true,
      imports: [ConfigModule],
      inject: [ConfigService],
      useFactory: createVaneOptions,
    }),
    // #endregion vane-module
    TerminusModule,
  ],
  controllers: [
    GreetingController,
    CheckoutController,
    DashboardController,
    PricingController,
    PaymentsController,
    TlsController,
    DatabaseController,
    HealthController,
  ],
  providers: [GreetingService, ChangeLogService],
})
export class AppModule {}
