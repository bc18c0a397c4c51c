/**
 * The implementation of `request.vane`. Internal: users see {@link RequestVane}.
 *
 * @packageDocumentation
 */
import { AdapterRequestReader, type AbResults, type VaneReader, type VaneSnapshot } from '@vane/client';
import type { RequestVane } from './request-vane.js';

/** `request.vane`: the reader every adapter gives a request (`AdapterRequestReader`). */
export class RequestVaneAccessor extends AdapterRequestReader implements RequestVane {
  /**
   * @param reader - the request's snapshot, or the client itself (live reads).
   * @param snapshot - the request's snapshot, whose scope its hooks and handler run in.
   */
  constructor(reader: VaneReader, evaluate: (keys: readonly string[]) => Promise<AbResults>, snapshot?: VaneSnapshot) {
    super(reader, evaluate, 'request.vane', snapshot);
  }
}
