import type { VaneServerLogger } from '../observability/logger.js';

/** The levels of the command line's `--log-level`, least severe first. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const ORDER: Readonly<Record<LogLevel, number>> = { debug: 0, info: 1, warn: 2, error: 3 };

/**
 * A logger for people at a terminal (`--log-format text`): the message
 * alone, one line each, on standard output (warnings and errors on standard
 * error); lines below `level` are dropped.
 */
export function textLogger(level: LogLevel = 'info'): VaneServerLogger {
  const at = (line: LogLevel, write: (message: string) => void) => (message: string) => {
    if (ORDER[line] >= ORDER[level]) write(message);
  };
  return {
    debug: at('debug', (m) => console.log(m)),
    info: at('info', (m) => console.log(m)),
    warn: at('warn', (m) => console.warn(m)),
    error: at('error', (m) => console.error(m)),
  };
}
