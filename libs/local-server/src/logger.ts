/** Where the local server reports what it does. It never logs a key or a secret value. */
export interface LocalServerLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Logs nothing: the default of the in-process API, so test output stays clean. */
export const silentLogger: LocalServerLogger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/** Logs to the console, one line each: the CLI's logger. */
export const consoleLogger: LocalServerLogger = {
  info: (message) => console.log(message),
  warn: (message) => console.warn(message),
  error: (message) => console.error(message),
};
