/**
 * The implementation of `req.vane`. Internal: users see {@link RequestVane}.
 *
 * @packageDocumentation
 */
import type { VaneReader, VaneView } from '@vane/client';
import { AdapterRequestReader, type RequestAbEvaluationOptions, type RequestVane } from '@vane/client/adapter';
import type { NextFunction, Request } from 'express';

/** `req.vane`: the reader every adapter gives a request (`AdapterRequestReader`), with the request's A/B memo. */
export class RequestVaneAccessor extends AdapterRequestReader<Request> implements RequestVane {
  /** The `VaneExpress` this accessor belongs to (an app may mount several). */
  readonly owner: object;
  /** The request's accessor of another `VaneExpress` mounted before this one (see `request-accessors.ts`). */
  readonly nextOnRequest: RequestVaneAccessor | undefined;
  #scoped = false;

  /**
   * @param owner - the `VaneExpress` this accessor belongs to.
   * @param reader - the request's view, or the client itself (live reads).
   * @param abOptions - what the request's A/B memo (shared with the route's A/B guards) is made with.
   * @param request - the request.
   * @param view - the request's view, whose scope the rest of the chain runs in.
   * @param nextOnRequest - the request's accessor of another `VaneExpress`, if any.
   */
  constructor(
    owner: object,
    reader: VaneReader,
    abOptions: RequestAbEvaluationOptions<Request>,
    request: Request,
    view: VaneView | undefined,
    nextOnRequest: RequestVaneAccessor | undefined,
  ) {
    super(reader, abOptions, request, 'req.vane', view);
    this.owner = owner;
    this.nextOnRequest = nextOnRequest;
  }

  /**
   * Calls `next()`, the first time inside the request's pinned scope (so
   * `vane.client` reads in the rest of the chain answer from the request's
   * revision); later calls (another guard of the route) are already in it.
   */
  continue(next: NextFunction): void {
    if (this.view === undefined || this.#scoped) return next();
    this.#scoped = true;
    this.view.run(next);
  }
}
