/**
 * The `vane` command line: `vane types` and `vane refs`, parsed with
 * commander. Every failure is one line on stderr and exit status 2.
 *
 * @packageDocumentation
 */
import { Command, CommanderError, Option } from 'commander';
import { runRefs, type RefsOptions } from './refs/refs-command.js';
import { DEFAULT_TYPES_FILE, runTypes, type TypesOptions } from './types/types-command.js';

/** What the command line reads and writes besides its arguments: the process's, or a test's. */
export interface CliIo {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  stdout(line: string): void;
  stderr(line: string): void;
}

function addSourceOptions(command: Command): Command {
  return command
    .option('--base-url <url>', 'a running service (API key from VANE_API_KEY or --api-key-file)')
    .option('--api-key-file <file>', 'a file whose first line is the API key')
    .addOption(
      new Option('--api-key <key>', 'the API key (visible to every local user: prefer VANE_API_KEY)').hideHelp(),
    )
    .option('--seed <file>', 'a seed file instead of a service')
    .option('--service <slug>', 'the service: of the seed, or of the admin API')
    .option('--admin-url <url>', "the server's admin address (admin token from VANE_ADMIN_TOKEN or --admin-token-file)")
    .option('--admin-token-file <file>', 'a file whose first line is the admin token');
}

/** Builds the program; `onExit` receives each command's exit status. */
function buildProgram(io: CliIo, onExit: (code: number) => void): Command {
  const program = new Command('vane')
    .description('Types from a Vane service, and the code references that find typos and stale flags.')
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout(text.trimEnd()), writeErr: (text) => io.stderr(text.trimEnd()) })
    .showHelpAfterError(false);

  const context = {
    cwd: io.cwd,
    env: io.env,
    print: io.stdout,
    warn: io.stderr,
  };

  addSourceOptions(
    program
      .command('types')
      .description("write a .d.ts that types every read of the service's keys (never a value)")
      .option('--out <file>', 'the declaration file', DEFAULT_TYPES_FILE)
      .option('--check', 'write nothing; exit 1 when the file is out of date, listing the keys that changed'),
  ).action(async (options: TypesOptions) => onExit((await runTypes(options, context)).exitCode));

  addSourceOptions(
    program
      .command('refs')
      .description('list every Vane key the code reads; with a source, the keys it lacks and the flags to clean up')
      .option('--dir <dir>', "the directory to scan (default: the tsconfig.json's files, else the current directory)")
      .option('--json', 'print the report as JSON')
      .option(
        '--stale-after <duration>',
        "a steady flag unchanged for longer is stale (with --admin-url's audit)",
        '30d',
      ),
  ).action(async (options: RefsOptions) => onExit((await runRefs(options, context)).exitCode));
  return program;
}

/**
 * Runs the command line on `argv` (without `node` and the script) and
 * resolves with the exit status: 0 done, 1 a finding (`--check` out of
 * date, keys used but undefined), 2 an error.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let exitCode = 0;
  const program = buildProgram(io, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version end here too, with their own status (0).
      return err.exitCode === 0 ? 0 : 2;
    }
    // One line, whatever the error: a CI log shows it whole.
    const message = err instanceof Error ? err.message : String(err);
    io.stderr(`vane: ${message.replace(/\s*\n\s*/g, ' ')}`);
    return 2;
  }
}
