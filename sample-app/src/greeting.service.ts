/**
 * A config read live through an observable: the service keeps the latest
 * `greeting.text` that `VaneObservables.config$()` emitted, and counts the
 * changes since the app started.
 */
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { VaneObservables } from '@vane/nestjs';
import type { Observable } from 'rxjs';

/** What the app says when `greeting.text` is not defined. */
export const DEFAULT_GREETING = 'Hello';

@Injectable()
export class GreetingService implements OnModuleInit {
  readonly #logger = new Logger(GreetingService.name);
  #latest = DEFAULT_GREETING;
  #changes = -1;

  constructor(private readonly live: VaneObservables) {}

  /** `config$` emits the current value at once, then each new one; it completes when the app closes. */
  onModuleInit(): void {
    this.watch().subscribe((text) => {
      this.#changes += 1;
      if (this.#changes > 0) this.#logger.log(`greeting.text is now "${text}"`);
      this.#latest = text;
    });
  }

  /** The latest greeting. */
  get latest(): string {
    return this.#latest;
  }

  /** How many times the greeting changed since the app started. */
  get changes(): number {
    return this.#changes;
  }

  // #region observable
  /** The greeting now, then every change. */
  watch(): Observable<string> {
    return this.live.config$('greeting.text', DEFAULT_GREETING);
  }
  // #endregion observable
}
