/**
 * The error handler: Vane errors to clean JSON answers, through Fastify's error handling.
 *
 * @packageDocumentation
 */
import type { VaneLogger } from '@vane/client';
import { answerVaneError, hasVaneErrorCode, VANE_ERROR_ANSWERS } from '@vane/client/adapter';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pinoVaneLogger } from './pino-vane-logger.js';
import type { VaneErrorHandlerOptions } from './vane-fastify.options.js';

/** A Fastify error handler (`setErrorHandler`). */
export type VaneFastifyErrorHandler = (error: unknown, request: FastifyRequest, reply: FastifyReply) => void;

/**
 * Builds the handler. For an error of `@vane/client` (recognised by its
 * `code`), it answers `{ statusCode, code, message }` with the status of the
 * shared table (the same as `@vane/express`), `Retry-After` when the service
 * gave one, and logs the error's own message (free of keys and secret
 * values): 5xx as errors, 4xx as warnings. Any other error, or one raised
 * after the headers were sent, is thrown on to the error handler that was in
 * place before (Fastify's, or yours).
 *
 * @param logger - the plugin's `logger` option; by default `request.log`.
 */
export function createErrorHandler(
  options: VaneErrorHandlerOptions = {},
  logger?: VaneLogger,
): VaneFastifyErrorHandler {
  const statuses = options.statuses ?? {};
  return function vaneErrorHandler(error, request, reply) {
    if (!hasVaneErrorCode(error, VANE_ERROR_ANSWERS) || reply.sent) throw error;
    const { status, retryAfterSeconds, body } = answerVaneError(error, VANE_ERROR_ANSWERS, statuses);
    const log = logger ?? pinoVaneLogger(request.log);
    // The path without its query string, which may carry anything.
    const line = `${request.method} ${request.url.split('?')[0]}: ${status} ${error.code}: ${error.message}`;
    if (status >= 500) log.error(line);
    else log.warn(line);
    if (retryAfterSeconds !== undefined) void reply.header('retry-after', String(retryAfterSeconds));
    void reply.code(status).type('application/json; charset=utf-8').send(body);
  };
}
