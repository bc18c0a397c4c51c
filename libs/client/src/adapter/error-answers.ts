/**
 * The HTTP answer a web framework adapter gives for a Vane error: one table
 * for `@vane/express`, `@vane/fastify` and `@vane/nestjs`'s `VaneExceptionFilter`.
 *
 * @packageDocumentation
 */
import type { VaneErrorCode } from '../errors.js';

/** The status and the fixed message an adapter answers a Vane error with. */
export interface VaneErrorAnswer {
  /** The HTTP status the caller of the app receives. */
  readonly status: number;
  /** A fixed text for people; it never holds a key name, an API key or a value. */
  readonly message: string;
}

/**
 * The answer to each of the client's error codes. The status says what the
 * caller of the app should understand, which is not the status Vane answered
 * the app: a 401 from Vane means the app's key is wrong, not that the caller
 * is unauthenticated (503). 500 for the app's own mistakes (a missing
 * secret, a public key reading secrets), 502/503 when the service cannot serve.
 * A code missing here does not compile.
 */
export const VANE_ERROR_ANSWERS: Readonly<Record<VaneErrorCode, VaneErrorAnswer>> = {
  VANE_UNAUTHORIZED: { status: 503, message: "The configuration service refused this application's credentials." },
  VANE_BILLING_OVERDUE: { status: 503, message: 'The configuration service is not serving this application.' },
  VANE_NOT_FOUND: { status: 503, message: 'The configuration service does not know this application.' },
  VANE_RATE_LIMITED: {
    status: 503,
    message: 'The configuration service is rate limiting this application; try again later.',
  },
  VANE_QUARANTINED: {
    status: 503,
    message: 'The configuration service is rate limiting this application; try again later.',
  },
  VANE_COMMIT_OUTCOME_UNKNOWN: {
    status: 504,
    message: 'The configuration service may or may not have applied this change; check before retrying.',
  },
  VANE_CONFIG_INVALID: { status: 503, message: 'The application is not configured correctly.' },
  VANE_ADDON_NOT_AVAILABLE: { status: 503, message: 'A/B testing is not available to this application.' },
  VANE_UNEXPECTED_RESPONSE: {
    status: 502,
    message: 'The configuration service sent an answer this application cannot use.',
  },
  VANE_TRANSPORT: { status: 502, message: 'The configuration service could not be reached.' },
  VANE_NOT_A_VANE_SERVICE: { status: 502, message: 'The configuration service could not be reached.' },
  VANE_TOKEN_EXCHANGE_FAILED: {
    status: 503,
    message: 'This application could not authenticate to the configuration service.',
  },
  VANE_SESSION_EXPIRED: {
    status: 503,
    message: 'This application could not authenticate to the configuration service.',
  },
  VANE_WORKLOAD_IDENTITY_NOT_CONFIGURED: {
    status: 500,
    message: 'This application could not authenticate to the configuration service.',
  },
  VANE_PUBLIC_KEY_SECRET_ACCESS: {
    status: 500,
    message: 'A secret this route needs is not available to this application.',
  },
  VANE_FRONTEND_SECRET_READ: {
    status: 500,
    message: 'A secret this route needs is not available to this application.',
  },
  VANE_SECRET_NOT_FOUND: { status: 500, message: 'A secret this route needs is not available.' },
  VANE_SECRET_FILE_WRITE: { status: 500, message: 'A secret this route needs is not available.' },
  VANE_SECRETS_NOT_AVAILABLE: { status: 503, message: 'A secret this route needs is not available yet.' },
  VANE_INVALID_ARGUMENT: { status: 500, message: 'This application made an invalid call to its configuration client.' },
  VANE_CLIENT_CLOSED: { status: 503, message: 'This application is shutting down.' },
  VANE_LIVE_RESOURCE_BUILD_FAILED: { status: 503, message: 'A resource this route needs is not available.' },
  VANE_LIVE_RESOURCE_CLOSED: { status: 503, message: 'This application is shutting down.' },
  // Raised by @vane/browser only; an app that rendered on a server with it made a configuration mistake.
  VANE_SECRET_KEY_IN_BROWSER: { status: 500, message: 'This application is not configured correctly.' },
};

/** The JSON body of an adapter's answer to a Vane error. */
export interface VaneErrorBody<C extends string = VaneErrorCode> {
  /** The HTTP status, repeated. */
  readonly statusCode: number;
  /** The error's stable code (e.g. `VANE_RATE_LIMITED`): match on it. */
  readonly code: C;
  /** The fixed text of the code's answer; it never holds a key name, an API key or a value. */
  readonly message: string;
}

/** What an adapter sends for a Vane error: status, `Retry-After` (seconds) when known, body. */
export interface VaneErrorReply<C extends string = VaneErrorCode> {
  /** The HTTP status to answer with. */
  readonly status: number;
  /** The `Retry-After` header's value, in whole seconds; undefined when the error gives no delay. */
  readonly retryAfterSeconds: number | undefined;
  /** The JSON body. */
  readonly body: VaneErrorBody<C>;
}

/**
 * True for an `Error` whose `code` has an answer in `answers`. Matched by
 * code, not by class, so copies of the classes loaded twice (ES module and
 * CommonJS) still match.
 */
export function hasVaneErrorCode<C extends string>(
  err: unknown,
  answers: Readonly<Record<C, VaneErrorAnswer>>,
): err is Error & { readonly code: C } {
  if (!(err instanceof Error)) return false;
  const code: unknown = (err as { code?: unknown }).code;
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(answers, code);
}

/**
 * The answer to a Vane error: the status from `statuses`, else from
 * `answers` (504 for a `VANE_TRANSPORT` that timed out, unless `statuses`
 * names `VANE_TRANSPORT`), `Retry-After` in whole seconds when the error
 * carries a positive `retryAfterMs`, and the body with the code's fixed message.
 *
 * @param answers - the table: {@link VANE_ERROR_ANSWERS}, or a superset with an adapter's own codes.
 * @param statuses - statuses that replace the table's, by code.
 */
export function answerVaneError<C extends string>(
  err: Error & { readonly code: C },
  answers: Readonly<Record<C, VaneErrorAnswer>>,
  statuses: Partial<Record<C, number>> = {},
): VaneErrorReply<C> {
  const known = answers[err.code];
  const extra = err as { readonly timedOut?: unknown; readonly retryAfterMs?: unknown };
  const own = statuses[err.code];
  let status = own ?? known.status;
  if (err.code === 'VANE_TRANSPORT' && extra.timedOut === true && own === undefined) status = 504;
  const retryAfterMs = extra.retryAfterMs;
  const retryAfterSeconds =
    typeof retryAfterMs === 'number' && Number.isFinite(retryAfterMs) && retryAfterMs > 0
      ? Math.ceil(retryAfterMs / 1000)
      : undefined;
  return { status, retryAfterSeconds, body: { statusCode: status, code: err.code, message: known.message } };
}
