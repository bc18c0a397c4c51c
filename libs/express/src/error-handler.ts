/**
 * `vane.errorHandler()`: Vane errors to clean JSON answers.
 *
 * @packageDocumentation
 */
import type { VaneErrorCode, VaneLogger } from '@vane/client';
import type { ErrorRequestHandler } from 'express';
import type { VaneExpressErrorCode } from './errors/vane-express.error.js';

/** Every code {@link errorHandler} answers: the client's and `@vane/express`'s. */
export type VaneAnyErrorCode = VaneErrorCode | VaneExpressErrorCode;

/** The JSON body of an answer made by the error handler. */
export interface VaneErrorBody {
  /** The HTTP status, repeated. */
  readonly statusCode: number;
  /** The error's stable code (e.g. `VANE_RATE_LIMITED`): match on it. */
  readonly code: VaneAnyErrorCode;
  /** A fixed text for people; it never holds a key name, an API key or a value. */
  readonly message: string;
}

/** Options of `vane.errorHandler()`. */
export interface ErrorHandlerOptions {
  /**
   * Statuses to answer instead of the defaults, by code (e.g.
   * `{ VANE_AB_CONTEXT_INVALID: 422 }`).
   * @default the table in the README: 400 for an invalid A/B context, 500 for
   * the app's own mistakes (a missing secret, a public key reading secrets),
   * 502/503/504 when the Vane service cannot serve
   */
  readonly statuses?: Partial<Record<VaneAnyErrorCode, number>>;
  /**
   * Where the full error (its own message, already free of API keys and
   * secret values) is logged: 5xx as errors, 4xx as warnings. `false` logs nothing.
   * @default the `logger` given to `createVane()`, else `console`
   */
  readonly logger?: VaneLogger | false;
}

interface Answer {
  readonly status: number;
  readonly message: string;
}

const ANSWERS: Readonly<Record<VaneAnyErrorCode, Answer>> = {
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
  VANE_CONFIG_INVALID: { status: 503, message: 'The application is not configured correctly.' },
  VANE_ADDON_NOT_AVAILABLE: { status: 503, message: 'A/B testing is not available to this application.' },
  VANE_UNEXPECTED_RESPONSE: {
    status: 502,
    message: 'The configuration service sent an answer this application cannot use.',
  },
  VANE_TRANSPORT: { status: 502, message: 'The configuration service could not be reached.' },
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
  VANE_AB_CONTEXT_INVALID: { status: 400, message: 'The request does not carry a valid A/B testing context.' },
};

/** A Vane error as the handler sees it: matched by `code`, so copies of the classes loaded twice (ESM and CommonJS) still match. */
interface CodedError extends Error {
  readonly code: VaneAnyErrorCode;
  readonly timedOut?: unknown;
  readonly retryAfterMs?: unknown;
}

/** True for an error of `@vane/client` or `@vane/express`, recognised by its stable code. */
export function isVaneError(err: unknown): err is CodedError {
  if (!(err instanceof Error)) return false;
  const code: unknown = (err as { code?: unknown }).code;
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(ANSWERS, code);
}

/**
 * The answer the handler makes for a Vane error: its status, `Retry-After`
 * in seconds when the service gave one, and the body.
 */
export function describeVaneError(
  err: Error & { readonly code: VaneAnyErrorCode },
  statuses: Partial<Record<VaneAnyErrorCode, number>> = {},
): { status: number; retryAfterSeconds: number | undefined; body: VaneErrorBody } {
  const known = ANSWERS[err.code];
  const coded = err as CodedError;
  let status = statuses[err.code] ?? known.status;
  if (err.code === 'VANE_TRANSPORT' && coded.timedOut === true && statuses.VANE_TRANSPORT === undefined) status = 504;
  const retryAfterMs = coded.retryAfterMs;
  const retryAfterSeconds =
    typeof retryAfterMs === 'number' && Number.isFinite(retryAfterMs) && retryAfterMs > 0
      ? Math.ceil(retryAfterMs / 1000)
      : undefined;
  return { status, retryAfterSeconds, body: { statusCode: status, code: err.code, message: known.message } };
}

const consoleErrorLogger: VaneLogger = {
  warn: (m) => console.warn(`[vane] ${m}`),
  error: (m) => console.error(`[vane] ${m}`),
};

/**
 * Builds the error middleware. Internal: users call `vane.errorHandler()`.
 *
 * @param defaultLogger - the `logger` given to `createVane()`, if any.
 */
export function createErrorHandler(options: ErrorHandlerOptions = {}, defaultLogger?: VaneLogger): ErrorRequestHandler {
  const logger = options.logger === false ? undefined : (options.logger ?? defaultLogger ?? consoleErrorLogger);
  const statuses = options.statuses ?? {};
  return function vaneErrorHandler(err, req, res, next) {
    if (!isVaneError(err) || res.headersSent) return next(err);
    const { status, retryAfterSeconds, body } = describeVaneError(err, statuses);
    if (logger) {
      const line = `${req.method} ${req.baseUrl}${req.path}: ${status} ${err.code}: ${err.message}`;
      if (status >= 500) logger.error(line);
      else logger.warn(line);
    }
    if (retryAfterSeconds !== undefined) res.set('Retry-After', String(retryAfterSeconds));
    res.status(status).json(body);
  };
}
