/**
 * The implementation of `req.vane`. Internal: users see {@link RequestVane}.
 *
 * @packageDocumentation
 */
import { AdapterRequestReader, type VaneClient } from '@vane/client';
import type { AbBatch } from './ab-batch.js';
import type { RequestVane } from './request-vane.js';

/** `req.vane`: the reader every adapter gives a request (`AdapterRequestReader`), plus the request's A/B memo. */
export class RequestVaneAccessor extends AdapterRequestReader implements RequestVane {
  /** The request's A/B memo, shared with the route's A/B guards. */
  readonly batch: AbBatch;

  constructor(client: VaneClient, batch: AbBatch) {
    super(client, (keys) => batch.evaluate(keys), 'req.vane');
    this.batch = batch;
  }
}
