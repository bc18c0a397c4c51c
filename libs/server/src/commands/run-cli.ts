import { ConfigError } from '../errors/config-error.js';
import { helpText } from '../config/help-text.js';
import type { Program } from '../config/option-spec.js';
import { SERVER_SCHEMA } from '../config/server-options.js';
import { SeedError } from '../seed/seed-error.js';
import type { CommandContext } from './cli-command.js';
import { COMMANDS } from './index.js';

/**
 * Runs `vane-server` / `vane-local-server`: picks the subcommand (the first
 * argument when it is not an option; `serve` otherwise) and runs it.
 * Resolves with the exit code, or `'running'` while a server runs:
 * 0 done, 1 failed, 2 a wrong setting or argument.
 */
export async function runCli(
  program: Program,
  argv: readonly string[],
  io: Pick<CommandContext, 'env' | 'out' | 'err'>,
): Promise<number | 'running'> {
  const named = argv[0] !== undefined && !argv[0].startsWith('-');
  const command = named ? COMMANDS.find((c) => c.name === argv[0]) : COMMANDS[0]!;
  const help = helpText(program, SERVER_SCHEMA, COMMANDS);
  if (!command) {
    // The word is an argument the user typed, not a secret slot: naming it helps with a typo.
    io.err(`${program}: unknown command "${argv[0]!.slice(0, 40)}"\n\n${help}`);
    return 2;
  }
  const rest = named ? argv.slice(1) : argv;
  if (rest.includes('--help') || rest.includes('-h')) {
    // `vane-server --help` lists every command; `vane-server <command> --help` is that command's own usage.
    io.out(named ? (command.help ?? helpText(program, SERVER_SCHEMA, COMMANDS, command)) : help);
    return 0;
  }
  try {
    return await command.run({ program, argv: rest, ...io });
  } catch (error) {
    if (error instanceof ConfigError) {
      io.err(`${program}: ${error.message}\n(see ${program} --help)`);
      return 2;
    }
    if (error instanceof SeedError && command.name === 'check-config') {
      io.err(`${program}: ${error.message}`);
      return 2;
    }
    throw error;
  }
}

/** Which command a bin file runs: `vane-server` for `bin/vane-server.cjs`, the loopback `vane-local-server` otherwise. */
export function programOf(scriptPath: string | undefined): Program {
  const base = (scriptPath ?? '').split(/[\\/]/).pop() ?? '';
  return base.startsWith('vane-server') ? 'vane-server' : 'vane-local-server';
}
