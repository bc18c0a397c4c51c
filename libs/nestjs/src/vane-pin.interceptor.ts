import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { Observable } from 'rxjs';
import { VaneRequestPins } from './vane-request-pins.service.js';

/**
 * Runs every handler inside its call's pinned scope (see
 * {@link VaneRequestPins}): registered globally by `VaneModule`, so the
 * handler, its pipes (`@Secret()`, `@Flag()`) and the services it calls read
 * the revision the call's guard decided on. Passes calls through untouched
 * with `consistentReads: false`.
 */
@Injectable()
export class VanePinInterceptor implements NestInterceptor {
  constructor(private readonly pins: VaneRequestPins) {}

  /** Runs the rest of the call in its pinned scope. */
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return this.pins.run(context, () => next.handle());
  }
}
