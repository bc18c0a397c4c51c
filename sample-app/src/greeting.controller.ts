/**
 * `GET /greeting`: the latest `greeting.text`, kept by an observable.
 * `GET /greeting/stream`: the same as server-sent events, one per change.
 */
import { Controller, Get, type MessageEvent, Sse } from '@nestjs/common';
import { map, type Observable } from 'rxjs';
import { GreetingService } from './greeting.service.js';

@Controller('greeting')
export class GreetingController {
  constructor(private readonly greeting: GreetingService) {}

  /** `{ greeting, changes }`: change `greeting.text` in the admin API and the next request shows it. */
  @Get()
  get(): { greeting: string; changes: number } {
    return { greeting: this.greeting.latest, changes: this.greeting.changes };
  }

  /** `curl -N …/greeting/stream`: an event now, then one per change, until the app closes. */
  @Sse('stream')
  stream(): Observable<MessageEvent> {
    return this.greeting.watch().pipe(map((greeting) => ({ data: { greeting } })));
  }
}
