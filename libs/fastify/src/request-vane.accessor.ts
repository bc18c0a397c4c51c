/**
 * The implementation of `request.vane`. Internal: users see {@link RequestVane}.
 *
 * @packageDocumentation
 */
import type { VaneReader, VaneView } from '@vane/client';
import { AdapterRequestReader, type RequestAbEvaluationOptions, type RequestVane } from '@vane/client/adapter';
import type { FastifyRequest } from 'fastify';

/** `request.vane`: the reader every adapter gives a request (`AdapterRequestReader`). */
export class RequestVaneAccessor extends AdapterRequestReader<FastifyRequest> implements RequestVane {
  /**
   * @param reader - the request's view, or the client itself (live reads).
   * @param abOptions - what the request's A/B memo (shared with the route's A/B guards) is made with.
   * @param request - the request.
   * @param view - the request's view, whose scope its hooks and handler run in.
   */
  constructor(
    reader: VaneReader,
    abOptions: RequestAbEvaluationOptions<FastifyRequest>,
    request: FastifyRequest,
    view?: VaneView,
  ) {
    super(reader, abOptions, request, 'request.vane', view);
  }
}
