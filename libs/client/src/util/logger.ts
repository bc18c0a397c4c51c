/**
 * The pluggable logger.
 *
 * @packageDocumentation
 */

/**
 * A logger the client writes to. Compatible with `console`, pino and the
 * NestJS `Logger` (whose `log` is not used). Messages never contain a key in
 * clear or a secret value.
 */
export interface VaneLogger {
  /** Detail useful when diagnosing (each sync, each stream event). */
  debug?(message: string): void;
  /** Notable state changes (stream connected, fallback to polling). */
  info?(message: string): void;
  /** Something failed and the client recovers on its own (background sync, stream). */
  warn(message: string): void;
  /** Something failed that needs a person (billing overdue, unauthorized). */
  error(message: string): void;
}

/** A logger that discards everything. */
export const silentLogger: VaneLogger = { warn() {}, error() {} };

/** The default logger: warnings and errors to `console`, prefixed `[vane]`. */
export const consoleLogger: VaneLogger = {
  warn: (m) => console.warn(`[vane] ${m}`),
  error: (m) => console.error(`[vane] ${m}`),
};
