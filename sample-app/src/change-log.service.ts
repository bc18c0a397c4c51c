/**
 * Logs every change the app receives from Vane (`VaneObservables.changes$`),
 * so you can watch a flip in the admin API reach the app. Secret changes
 * carry a type and a version, never a value.
 */
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { VaneObservables } from '@vane/nestjs';

@Injectable()
export class ChangeLogService implements OnModuleInit {
  readonly #logger = new Logger('VaneChanges');

  constructor(private readonly live: VaneObservables) {}

  /** Subscribes for the app's lifetime: `changes$` completes when the app closes. */
  onModuleInit(): void {
    this.live.changes$.subscribe((e) => this.#logger.log(`vane: ${e.kind} ${e.key} changed (revision ${e.revision})`));
  }
}
