import { Inject, Injectable, type ExecutionContext } from '@nestjs/common';
import { VaneClient, type VaneReader, type VaneView } from '@vane/client';
import { callView, whenResponseEnds } from '@vane/client/adapter';
import { Observable } from 'rxjs';
import type { VaneModuleOptions } from './interfaces/vane-module-options.interface.js';
import { responseOf } from './request-context.js';
import { callStateOf, type CallState } from './utils/call-state.js';
import { VANE_MODULE_OPTIONS } from './vane.constants.js';

/**
 * One revision per call: the view every Vane read made on behalf of a
 * request (an HTTP request on Express or Fastify, a GraphQL operation, a
 * microservice message, a WebSocket message) answers from.
 *
 * The revision is taken at the call's first Vane touch (the
 * `@FeatureFlag()` guard, `@Flag()`, or the module's interceptor, whichever
 * runs first; so before the guard decides) and kept for the call in a
 * state keyed by the call's object (see `CallState`). The interceptor `VaneModule`
 * registers runs the handler, its pipes and everything it awaits inside
 * the client's pinned scope (`view.run()`), so a service injected into
 * the handler reads the same revision through `VaneClient`. The revision is
 * let go when the HTTP response closes, or, for calls without one, when the
 * handler's observable ends (a call refused before its handler runs: when
 * its object is garbage collected; in any case at most `pinMaxAgeMs` after
 * a newer revision lands). A revision without file secrets is not counted
 * at all: its calls share one view (`held: false`), nothing waits on
 * their end, and the revision's memory goes with the last call that
 * reaches it (at most `pinMaxAgeMs` after a newer one lands).
 *
 * With `consistentReads: false`, nothing is pinned: every read is live.
 */
@Injectable()
export class VaneRequestPins {
  /** Lets go of the revision of a call without a response whose handler never ran (refused by a guard). */
  readonly #unreleased = new FinalizationRegistry<VaneView>((view) => view.release());
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
   * What the call of `context` reads through: its view (taken now if
   * this is the call's first Vane touch), or the client itself (live) with
   * `consistentReads: false`.
   */
  readerFor(context: ExecutionContext): VaneReader & { readonly revision: number } {
    return this.#pinOf(context)?.view ?? this.client;
  }

  /**
   * Runs a handler (`handle()`, which returns its observable) inside the
   * pinned scope of the call of `context`: the handler, its pipes and what
   * they await read the call's revision through `VaneClient`.
   */
  run<T>(context: ExecutionContext, handle: () => Observable<T>): Observable<T> {
    const call = this.#pinOf(context);
    if (call === undefined) return handle();
    const view = call.view;
    // Nest binds the rest of the call to the async context handle() is called in: the pinned one.
    if (!call.endsWithHandler) return view.run(handle);
    return new Observable<T>((subscriber) => {
      call.running++;
      // handle() binds the rest of the call to the async context it is called in: the pinned one.
      const subscription = view.run(() => handle().subscribe(subscriber));
      return () => {
        subscription.unsubscribe();
        if (--call.running === 0) {
          this.#unreleased.unregister(call);
          view.release();
        }
      };
    });
  }

  /** The call's state, with its revision taken (on the call's first Vane touch); `undefined` with `consistentReads: false`. */
  #pinOf(context: ExecutionContext): PinnedCall | undefined {
    if (!this.#enabled) return undefined;
    const state = callStateOf(context);
    if (state.view !== undefined) return state as PinnedCall;
    const view = callView(this.client);
    state.view = view;
    // A view shared by the calls of its revision (one without file secrets) has nothing to let go of.
    if (!view.held) return state as PinnedCall;
    const response = responseOf(context);
    state.endsWithHandler = response === undefined;
    // The state is its own unregister token: its handler's end unregisters it.
    if (response === undefined) this.#unreleased.register(state, view, state);
    else whenResponseEnds(response, () => view.release());
    return state as PinnedCall;
  }
}

/** A call whose revision is taken. */
type PinnedCall = CallState & { readonly view: VaneView };
