import { Inject, Injectable, type ExecutionContext } from '@nestjs/common';
import { VaneClient, type VaneReader, type VaneSnapshot } from '@vane/client';
import { Observable } from 'rxjs';
import type { VaneModuleOptions } from './interfaces/vane-module-options.interface.js';
import { callKeyOf, responseOf } from './request-context.js';
import { VANE_MODULE_OPTIONS } from './vane.constants.js';

/** Where a response keeps the snapshot its `close` lets go of. */
const PINNED = Symbol('vane.pinned');

/** A response that holds its call's snapshot. */
interface ClosingResponseWithPin {
  [PINNED]?: VaneSnapshot;
}

/** The `close` listener of every pinned response (`this`: the response). */
function releaseOnClose(this: ClosingResponseWithPin): void {
  const snapshot = this[PINNED];
  this[PINNED] = undefined;
  snapshot?.release();
}

/** The revision one call reads. */
interface CallPin {
  readonly snapshot: VaneSnapshot;
  /** False when the call's HTTP response ends it; true when its handler does (no response). */
  readonly endsWithHandler: boolean;
  /** Handlers of the call running now (its interceptor subscriptions). */
  running: number;
}

/**
 * One revision per call: the snapshot every Vane read made on behalf of a
 * request (an HTTP request on Express or Fastify, a GraphQL operation, a
 * microservice message, a WebSocket message) answers from.
 *
 * The revision is taken at the call's first Vane touch (the
 * `@FeatureFlag()` guard, `@Flag()`, or the module's interceptor, whichever
 * runs first; so before the guard decides) and kept for the call in a
 * WeakMap keyed by the call's object. The interceptor `VaneModule`
 * registers runs the handler, its pipes and everything it awaits inside
 * the client's pinned scope (`snapshot.run()`), so a service injected into
 * the handler reads the same revision through `VaneClient`. The revision is
 * let go when the HTTP response closes, or, for calls without one, when the
 * handler's observable ends (a call refused before its handler runs: when
 * its object is garbage collected; in any case at most `pinMaxAgeMs` after
 * a newer revision lands).
 *
 * With `consistentReads: false`, nothing is pinned: every read is live.
 */
@Injectable()
export class VaneRequestPins {
  readonly #calls = new WeakMap<object, CallPin>();
  /** Lets go of the revision of a call without a response whose handler never ran (refused by a guard). */
  readonly #unreleased = new FinalizationRegistry<VaneSnapshot>((snapshot) => snapshot.release());
  readonly #enabled: boolean;

  constructor(
    private readonly client: VaneClient,
    @Inject(VANE_MODULE_OPTIONS) options: VaneModuleOptions,
  ) {
    this.#enabled = options.consistentReads !== false;
  }

  /** Whether calls read one revision (the `consistentReads` option). */
  get enabled(): boolean {
    return this.#enabled;
  }

  /**
   * What the call of `context` reads through: its snapshot (taken now if
   * this is the call's first Vane touch), or the client itself (live) with
   * `consistentReads: false`.
   */
  readerFor(context: ExecutionContext): VaneReader & { readonly revision: number } {
    return this.#pinOf(context)?.snapshot ?? this.client;
  }

  /**
   * Runs a handler (`handle()`, which returns its observable) inside the
   * pinned scope of the call of `context`: the handler, its pipes and what
   * they await read the call's revision through `VaneClient`.
   */
  run<T>(context: ExecutionContext, handle: () => Observable<T>): Observable<T> {
    const pin = this.#pinOf(context);
    if (pin === undefined) return handle();
    // Nest binds the rest of the call to the async context handle() is called in: the pinned one.
    if (!pin.endsWithHandler) return pin.snapshot.run(handle);
    return new Observable<T>((subscriber) => {
      pin.running++;
      // handle() binds the rest of the call to the async context it is called in: the pinned one.
      const subscription = pin.snapshot.run(() => handle().subscribe(subscriber));
      return () => {
        subscription.unsubscribe();
        if (--pin.running === 0 && pin.endsWithHandler) {
          this.#unreleased.unregister(pin);
          pin.snapshot.release();
        }
      };
    });
  }

  #pinOf(context: ExecutionContext): CallPin | undefined {
    if (!this.#enabled) return undefined;
    // Guards and interceptors of one RPC or WebSocket call share its arguments array.
    const key = callKeyOf(context) ?? context.getArgs();
    let pin = this.#calls.get(key);
    if (pin === undefined) {
      const snapshot = this.client.snapshot();
      const response = responseOf(context);
      pin = { snapshot, endsWithHandler: response === undefined, running: 0 };
      this.#calls.set(key, pin);
      if (response === undefined) this.#unreleased.register(key, snapshot, pin);
      else if (response.closed === true) snapshot.release();
      else {
        // One shared listener, the snapshot on the response: no closure per request.
        (response as ClosingResponseWithPin)[PINNED] = snapshot;
        response.on('close', releaseOnClose);
      }
    }
    return pin;
  }
}
