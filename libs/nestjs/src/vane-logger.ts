import { Logger } from '@nestjs/common';
import type { VaneLogger } from '@vane/client';

/**
 * The client's logger inside Nest: a Nest `Logger` with the context `Vane`,
 * so the client's lines go wherever the app's logs go. `info` lines are logged
 * with `log`.
 */
export function createNestVaneLogger(
  logger: Pick<Logger, 'debug' | 'log' | 'warn' | 'error'> = new Logger('Vane'),
): VaneLogger {
  return {
    debug: (m) => logger.debug(m),
    info: (m) => logger.log(m),
    warn: (m) => logger.warn(m),
    error: (m) => logger.error(m),
  };
}
