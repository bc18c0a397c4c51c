import pino, { type DestinationStream, type Level } from 'pino';
import type { VaneServerLogger } from '../observability/logger.js';

/** Options of {@link jsonLogger}. */
export interface JsonLoggerOptions {
  /** Lines below it are dropped. @default 'info' */
  level?: Level;
  /** Where lines go. @default standard output, written synchronously so none is lost at exit */
  destination?: DestinationStream;
}

/**
 * Members a log line must never carry, whatever a caller passes: pino
 * replaces them with `[redacted]` as a second line of defence (the first is
 * that nobody logs them).
 */
const REDACTED = ['token', 'key', 'value', 'secret', 'password', 'authorization', 'cookie'];

/**
 * A {@link VaneServerLogger} writing one JSON object a line with pino:
 * `{"level":30,"time":"…","msg":"…","event":"write","request_id":"…",…}`.
 * The server's command line uses it (`--log-format json`).
 */
export function jsonLogger(options: JsonLoggerOptions = {}): VaneServerLogger {
  const logger = pino(
    {
      level: options.level ?? 'info',
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED, censor: '[redacted]' },
    },
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
  return {
    debug: (message, fields) => logger.debug(fields ?? {}, message),
    info: (message, fields) => logger.info(fields ?? {}, message),
    warn: (message, fields) => logger.warn(fields ?? {}, message),
    error: (message, fields) => logger.error(fields ?? {}, message),
  };
}
