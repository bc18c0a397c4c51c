/**
 * The implementation of `request.vane`. Internal: users see {@link RequestVane}.
 *
 * @packageDocumentation
 */
import { AdapterRequestReader, type RequestAbMemo, type VaneReader, type VaneSnapshot } from '@vane/client';
import type { RequestVane } from './request-vane.js';

/** `request.vane`: the reader every adapter gives a request (`AdapterRequestReader`). */
export class RequestVaneAccessor extends AdapterRequestReader implements RequestVane {
  /**
   * @param reader - the request's snapshot, or the client itself (live reads).
   * @param abEvaluation - the request's A/B memo, shared with the route's A/B guards.
   * @param snapshot - the request's snapshot, whose scope its hooks and handler run in.
   */
  constructor(reader: VaneReader, abEvaluation: RequestAbMemo, snapshot?: VaneSnapshot) {
    super(reader, abEvaluation, 'request.vane', snapshot);
  }
}
