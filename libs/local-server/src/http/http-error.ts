/** A stable error code of the wire protocol (PROTOCOL §3). */
export type ProtocolErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'billing_overdue'
  | 'addon_inactive'
  | 'not_found'
  | 'payload_too_large'
  | 'rate_limited'
  | 'quarantined'
  | 'internal_error';

/**
 * An error that becomes an HTTP answer with the body
 * `{"error": code, "message": message, ...extra}`. Its message is written for
 * people and never holds a key or a secret value.
 */
export class HttpError extends Error {
  override readonly name = 'HttpError';

  constructor(
    readonly status: number,
    readonly code: ProtocolErrorCode,
    message: string,
    readonly extra: Readonly<Record<string, string | number>> = {},
    readonly headers: Readonly<Record<string, string>> = {},
    options?: { cause?: unknown },
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
