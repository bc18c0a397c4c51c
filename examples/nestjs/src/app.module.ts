// The README's NestJS quick start, whole (the region is the file a reader pastes). The same file runs in
// a NestJS 11 (CommonJS) and a NestJS 12 (ESM) app: `npm run test:newcomer` builds both from the README.
// #region app-module
import { Controller, Get, Module, Sse, type MessageEvent } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { FeatureFlag, Secret, VaneModule, VaneObservables } from '@vane/nestjs';
import { map, type Observable } from 'rxjs';

@Controller()
export class AppController {
  constructor(private readonly live: VaneObservables) {}

  // Behind a flag: 404 while `new-checkout` is off. Flip it and the next request sees it, no restart.
  @FeatureFlag('new-checkout')
  @Get('checkout')
  checkout(): { checkout: string } {
    return { checkout: 'new' };
  }

  // A secret, read on every request (a rotation reaches the next one). Use it; never send it back.
  @Get('payments')
  payments(@Secret('stripe.api_key') stripeKey: string): { stripeConfigured: boolean } {
    return { stripeConfigured: stripeKey.length > 0 };
  }

  // A config as an observable: its value now, then every change, as server-sent events.
  @Sse('greeting')
  greeting(): Observable<MessageEvent> {
    return this.live.config$('greeting.text', 'Hello').pipe(map((text) => ({ data: { greeting: text } })));
  }
}

@Module({
  imports: [
    ConfigModule.forRoot(), // the environment (and .env): VANE_BASE_URL, VANE_API_KEY
    // The blocking initial sync: the app starts with every value in memory, or fails with a line saying why.
    VaneModule.forRootAsync({
      imports: [ConfigModule],
      inject: [ConfigService],
      useFactory: (config: ConfigService) => ({
        baseUrl: config.getOrThrow<string>('VANE_BASE_URL'),
        apiKey: config.getOrThrow<string>('VANE_API_KEY'),
      }),
    }),
  ],
  controllers: [AppController],
})
export class AppModule {}
// #endregion app-module
