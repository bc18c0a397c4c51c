/**
 * The implementation of `req.vane`. Internal: users see {@link RequestVane}.
 *
 * @packageDocumentation
 */
import { AdapterRequestReader, type VaneReader, type VaneSnapshot } from '@vane/client';
import type { NextFunction } from 'express';
import type { AbBatch } from './ab-batch.js';
import type { RequestVane } from './request-vane.js';

/** `req.vane`: the reader every adapter gives a request (`AdapterRequestReader`), plus the request's A/B memo. */
export class RequestVaneAccessor extends AdapterRequestReader implements RequestVane {
  /** The request's A/B memo, shared with the route's A/B guards. */
  readonly batch: AbBatch;
  #scoped = false;

  /**
   * @param reader - the request's snapshot, or the client itself (live reads).
   * @param snapshot - the request's snapshot, whose scope the rest of the chain runs in.
   */
  constructor(reader: VaneReader, batch: AbBatch, snapshot?: VaneSnapshot) {
    super(reader, (keys) => batch.evaluate(keys), 'req.vane', snapshot);
    this.batch = batch;
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
