/**
 * `vane.errorHandler()`: Vane errors to clean JSON answers.
 *
 * @packageDocumentation
 */
import type { VaneErrorCode, VaneLogger } from '@vane/client';
import {
  answerVaneError,
  hasVaneErrorCode,
  VANE_ERROR_ANSWERS,
  type VaneErrorAnswer,
  type VaneErrorBody,
} from '@vane/client/adapter';
import type { ErrorRequestHandler } from 'express';
import type { VaneExpressErrorCode } from './errors/vane-express.error.js';

/** Every code `vane.errorHandler()` answers: the client's and `@vane/express`'s. */
export type VaneAnyErrorCode = VaneErrorCode | VaneExpressErrorCode;

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

/** The client's table, plus the one code of `@vane/express`. */
const ANSWERS: Readonly<Record<VaneAnyErrorCode, VaneErrorAnswer>> = {
  ...VANE_ERROR_ANSWERS,
  VANE_AB_CONTEXT_INVALID: { status: 400, message: 'The request does not carry a valid A/B testing context.' },
};

/** True for an error of `@vane/client` or `@vane/express`, recognised by its stable code (so copies of the classes loaded twice, ESM and CommonJS, still match). */
export function isVaneError(err: unknown): err is Error & { readonly code: VaneAnyErrorCode } {
  return hasVaneErrorCode(err, ANSWERS);
}

/**
 * The answer the handler makes for a Vane error: its status, `Retry-After`
 * in seconds when the service gave one, and the body.
 */
export function describeVaneError(
  err: Error & { readonly code: VaneAnyErrorCode },
  statuses: Partial<Record<VaneAnyErrorCode, number>> = {},
): { status: number; retryAfterSeconds: number | undefined; body: VaneErrorBody<VaneAnyErrorCode> } {
  return answerVaneError(err, ANSWERS, statuses);
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
