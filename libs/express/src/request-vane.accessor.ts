/**
 * The implementation of `req.vane`. Internal: users see {@link RequestVane}.
 *
 * @packageDocumentation
 */
import { AdapterRequestReader, type RequestAbMemo, type VaneReader, type VaneSnapshot } from '@vane/client';
import type { NextFunction } from 'express';
import type { RequestVane } from './request-vane.js';

/** `req.vane`: the reader every adapter gives a request (`AdapterRequestReader`), with the request's A/B memo. */
export class RequestVaneAccessor extends AdapterRequestReader implements RequestVane {
  #scoped = false;

  /**
   * @param reader - the request's snapshot, or the client itself (live reads).
   * @param abEvaluation - the request's A/B memo, shared with the route's A/B guards.
   * @param snapshot - the request's snapshot, whose scope the rest of the chain runs in.
   */
  constructor(reader: VaneReader, abEvaluation: RequestAbMemo, snapshot?: VaneSnapshot) {
    super(reader, abEvaluation, 'req.vane', snapshot);
  }

  /**
   * Calls `next()`, the first time inside the request's pinned scope (so
   * `vane.client` reads in the rest of the chain answer from the request's
   * revision); later calls (another guard of the route) are already in it.
   */
  continue(next: NextFunction): void {
    if (this.snapshot === undefined || this.#scoped) return next();
    this.#scoped = true;
    this.snapshot.run(next);
  }
}
