/**
 * The implementation of `request.vane`. Internal: users see {@link RequestVane}.
 *
 * @packageDocumentation
 */
import { AdapterRequestReader, type AbResults, type VaneClient } from '@vane/client';
import type { RequestVane } from './request-vane.js';

/** `request.vane`: the reader every adapter gives a request (`AdapterRequestReader`). */
export class RequestVaneAccessor extends AdapterRequestReader implements RequestVane {
  constructor(client: VaneClient, evaluate: (keys: readonly string[]) => Promise<AbResults>) {
    super(client, evaluate, 'request.vane');
  }
}
