/**
 * Fastify's logger (pino) as the client's `VaneLogger`.
 *
 * @packageDocumentation
 */
import type { VaneLogger } from '@vane/client';
import type { FastifyBaseLogger } from 'fastify';

/**
 * The client's logger on a Fastify logger: `app.log` (pino, or whatever
 * logger the app gave Fastify) or a request's `request.log`, so Vane's lines
 * go where the app's go, at the same levels. A Fastify app created without
 * `logger` logs nothing, and neither does this.
 */
export function pinoVaneLogger(log: FastifyBaseLogger): VaneLogger {
  return {
    debug: (m) => log.debug(m),
    info: (m) => log.info(m),
    warn: (m) => log.warn(m),
    error: (m) => log.error(m),
  };
}
