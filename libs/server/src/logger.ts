/** Where the local server reports what it does. It never logs a key or a secret value. */
export interface LocalServerLogger {
  /** Routine events nobody needs to act on (a client hanging up mid-request). Optional. */
  debug?(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Logs nothing: the default of the in-process API, so test output stays clean. */
export const silentLogger: LocalServerLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/** Logs to the console, one line each: the CLI's logger. Debug lines only with `VANE_LOG_LEVEL=debug`. */
export const consoleLogger: LocalServerLogger = {
  debug: (message) => {
    if (process.env['VANE_LOG_LEVEL'] === 'debug') console.log(message);
  },
  info: (message) => console.log(message),
  warn: (message) => console.warn(message),
  error: (message) => console.error(message),
};
