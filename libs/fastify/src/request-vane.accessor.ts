/**
 * The implementation of `request.vane`. Internal: users see {@link RequestVane}.
 *
 * @packageDocumentation
 */
import type { VaneReader, VaneSnapshot } from '@vane/client';
import { AdapterRequestReader, type RequestAbEvaluationOptions, type RequestVane } from '@vane/client/adapter';
import type { FastifyRequest } from 'fastify';

/** `request.vane`: the reader every adapter gives a request (`AdapterRequestReader`). */
export class RequestVaneAccessor extends AdapterRequestReader<FastifyRequest> implements RequestVane {
  /**
   * @param reader - the request's snapshot, or the client itself (live reads).
   * @param abOptions - what the request's A/B memo (shared with the route's A/B guards) is made with.
   * @param request - the request.
   * @param snapshot - the request's snapshot, whose scope its hooks and handler run in.
   */
  constructor(
    reader: VaneReader,
    abOptions: RequestAbEvaluationOptions<FastifyRequest>,
    request: FastifyRequest,
    snapshot?: VaneSnapshot,
  ) {
    super(reader, abOptions, request, 'request.vane', snapshot);
  }
}
