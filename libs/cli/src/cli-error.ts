/**
 * The errors of `@vane/cli`. Every one carries a stable `code`; the command
 * prints its message on one line and exits with status 2. No message ever
 * holds an API key, an admin token, a config value or a secret.
 *
 * @packageDocumentation
 */

/** Every stable error code the `vane` command raises. */
export type CliErrorCode =
  /** The service, the admin API or the audit could not be reached (connection refused, DNS, timeout). */
  | 'VANE_CLI_UNREACHABLE'
  /** The service or the admin API refused the credential (`401`, `403`) or does not know the service (`404`). */
  | 'VANE_CLI_REFUSED'
  /** An answer that is not what the protocol says (not JSON, another shape, not a Vane service). */
  | 'VANE_CLI_BAD_ANSWER'
  /** A file that cannot be read or parsed: a seed, a generated declaration file, a tsconfig. */
  | 'VANE_CLI_BAD_FILE'
  /** Options that do not make a command: no source, two sources, a bad duration. */
  | 'VANE_CLI_USAGE';

/** Options of every {@link CliError}. */
export interface CliErrorOptions {
  /** The underlying error; never one whose message could hold a secret. */
  readonly cause?: unknown;
}

/**
 * An error the `vane` command reports as one line and exit status 2.
 * Match on `code`; the message is for people.
 */
export class CliError extends Error {
  /** Stable, machine-readable code of the condition. */
  readonly code: CliErrorCode;

  constructor(code: CliErrorCode, message: string, options: CliErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CliError';
    this.code = code;
  }
}
