import type { Program } from '../config/option-spec.js';

/** What a command is given. */
export interface CommandContext {
  readonly program: Program;
  /** The arguments after the command's name. */
  readonly argv: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  /** Writes one line to standard output. */
  readonly out: (line: string) => void;
  /** Writes one line to standard error. */
  readonly err: (line: string) => void;
}

/**
 * A subcommand of `vane-server` (`serve`, `check-config`, …), one per file
 * under `src/commands/`, listed in `commands/index.ts`.
 */
export interface CliCommand {
  /** The word that selects it (`check-config`). */
  readonly name: string;
  /** Its usage after the program's name, for the help (`check-config [options]`). */
  readonly usage: string;
  /** One line of help. */
  readonly summary: string;
  /**
   * What `<command> --help` prints: its own usage, options and exit codes.
   * Without it, the command takes the server's settings and its help is
   * its usage line above the list of settings.
   */
  readonly help?: string;
  /**
   * Runs it. Resolves with the exit code, or `'running'` when it keeps the
   * process alive (a server) and sets the exit code itself when it ends.
   * Errors of the configuration are thrown as `ConfigError` (exit code 2).
   */
  run(context: CommandContext): Promise<number | 'running'>;
}
