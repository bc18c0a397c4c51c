/**
 * The server's own requests to other services (a trust's JWKS, AWS STS): the
 * port its verifiers send through. `outbound/` implements it, every request
 * checked by the operator's outbound policy; the wiring passes it in.
 */
export interface OutboundFetch {
  /**
   * Sends `request` to `url`.
   *
   * @returns the answer; rejects with `OutboundRefusedError` when the server may not send to `url`, and with a
   *   network error (its `code`: `ETIMEDOUT`, `ETOOBIG`, `ECONNREFUSED`, …) otherwise.
   */
  send(url: URL, request: OutboundRequest): Promise<OutboundAnswer>;
}

/** An outbound request. */
export interface OutboundRequest {
  readonly method: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: Buffer;
  /** The whole exchange's bound, in milliseconds. */
  readonly timeoutMs: number;
  /** The largest answer body read, in bytes; a larger one fails with code `ETOOBIG`. */
  readonly maxBytes: number;
}

/** An outbound answer, read whole. A redirect is an answer like any other (its status), never followed. */
export interface OutboundAnswer {
  readonly status: number;
  readonly text: string;
}
