import { VaneServerError, type VaneServerErrorOptions } from './vane-server-error.js';

/** A stable error code of the wire protocol (PROTOCOL §3): the `error` member of an answer. */
export type ProtocolErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'billing_overdue'
  | 'addon_inactive'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'rate_limited'
  | 'quarantined'
  | 'store_unavailable'
  | 'commit_outcome_unknown'
  | 'internal_error';

/**
 * An error that becomes an HTTP answer with the body
 * `{"error": protocolCode, "message": message, ...extra}`. Its message is
 * written for people and never holds a key or a secret value. Its `code` is
 * the local server's own; `protocolCode` is the wire's.
 */
export class HttpError extends VaneServerError {
  /** Stable error code. */
  readonly code = 'VANE_LOCAL_REQUEST_REFUSED' as const;

  /**
   * @param status - the HTTP status of the answer.
   * @param protocolCode - the answer's `error` member (PROTOCOL §3).
   * @param message - the answer's `message`; never a key or a secret value.
   * @param extra - further members of the answer's body (e.g. `until`).
   * @param headers - headers of the answer (e.g. `Retry-After`).
   */
  constructor(
    readonly status: number,
    readonly protocolCode: ProtocolErrorCode,
    message: string,
    readonly extra: Readonly<Record<string, string | number>> = {},
    readonly headers: Readonly<Record<string, string>> = {},
    options?: VaneServerErrorOptions,
  ) {
    super(message, options);
  }

  /** 400 `invalid_request`. */
  static invalid(message: string, cause?: unknown): HttpError {
    return new HttpError(400, 'invalid_request', message, {}, {}, { cause });
  }

  /** 404 `not_found`. */
  static notFound(message: string): HttpError {
    return new HttpError(404, 'not_found', message);
  }

  /** 401 `unauthorized`. */
  static unauthorized(message: string): HttpError {
    return new HttpError(401, 'unauthorized', message);
  }
}
