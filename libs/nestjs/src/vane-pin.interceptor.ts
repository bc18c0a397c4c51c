import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { Observable } from 'rxjs';
import { InvalidArgumentError } from '@vane/client/errors';
import { VaneRequestPins } from './vane-request-pins.service.js';

/**
 * Runs every handler inside its call's pinned scope (see
 * `VaneRequestPins`): registered globally by `VaneModule`, so the
 * handler, its pipes (`@Secret()`, `@Flag()`) and the services it calls read
 * the revision the call's guard decided on. Passes calls through untouched
 * with `consistentReads: false`. With `useGlobalInterceptor: false`, apply
 * it yourself: `@UseInterceptors(VanePinInterceptor)`.
 */
@Injectable()
export class VanePinInterceptor implements NestInterceptor {
  constructor(private readonly pins: VaneRequestPins) {}

  /** Runs the rest of the call in its pinned scope. */
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return this.pins.run(context, () => next.handle());
  }
}

/** Passes every call through: what `useGlobalInterceptor: false` registers (a module's providers are fixed, its options are not). */
class NoVaneInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle();
  }
}

/**
 * Refuses a `useGlobalInterceptor` option that is not a boolean (checked
 * before the client starts, so nothing is left open).
 * @internal
 */
export function checkUseGlobalInterceptorOption(option: unknown): void {
  if (option !== undefined && typeof option !== 'boolean')
    throw new InvalidArgumentError(
      `useGlobalInterceptor must be true or false, not ${option === null ? 'null' : typeof option}`,
    );
}

/**
 * The app-wide interceptor the module registers for its `useGlobalInterceptor` option.
 * @internal
 */
export function vanePinInterceptorOf(option: boolean | undefined, pins: VaneRequestPins): NestInterceptor {
  checkUseGlobalInterceptorOption(option);
  return option === false ? new NoVaneInterceptor() : new VanePinInterceptor(pins);
}
