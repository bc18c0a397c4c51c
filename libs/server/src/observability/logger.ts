/** Structured members of a log line: names in snake_case, values never a key or a secret. */
export type LogFields = Readonly<Record<string, string | number | boolean | null | undefined>>;

/**
 * Where the local server reports what it does. It never logs a key or a
 * secret value. `fields` carry the line's facts (`event`, `request_id`,
 * `service`, `revision`, …) for structured loggers; a logger that only
 * takes messages may ignore them.
 */
export interface VaneServerLogger {
  /** Routine events nobody needs to act on (a client hanging up mid-request). Optional. */
  debug?(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** Logs nothing: the default of the in-process API, so test output stays clean. */
export const silentLogger: VaneServerLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/** Logs to the console, one line each (the message only): for people at a terminal. Debug lines only with `VANE_LOG_LEVEL=debug`. */
export const consoleLogger: VaneServerLogger = {
  debug: (message) => {
    if (process.env['VANE_LOG_LEVEL'] === 'debug') console.log(message);
  },
  info: (message) => console.log(message),
  warn: (message) => console.warn(message),
  error: (message) => console.error(message),
};
