import { checkConfigCommand } from './check-config.js';
import type { CliCommand } from './cli-command.js';
import { serveCommand } from './serve.js';
import { exportCommand, importCommand } from './export-import.js';
import { auditCommand, rotateRootKeyCommand } from './sealing-commands.js';

export type { CliCommand, CommandContext } from './cli-command.js';

/** Every subcommand of `vane-server`, by the word that selects it; the first is the default. */
export const COMMANDS: readonly CliCommand[] = [
  serveCommand,
  checkConfigCommand,
  exportCommand,
  importCommand,
  rotateRootKeyCommand,
  auditCommand,
];
