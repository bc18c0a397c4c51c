import { parseArgs } from 'node:util';
import { ConfigError } from '../errors/config-error.js';
import { storeHasPassword } from '../server/store-setting.js';
import type { CliCommand, CommandContext } from './cli-command.js';
import { exportStore, importStore } from './store-transfer.js';

/** `--store` of export and import: a flag or `VANE_STORE`, a password only in the environment. */
function storeOf(context: CommandContext, given: string | undefined): string {
  if (given !== undefined && storeHasPassword(given)) {
    throw new ConfigError(
      '--store',
      'a password on the command line is visible to every user: use VANE_STORE or PGPASSWORD',
    );
  }
  const store = given ?? (context.env['VANE_STORE'] || undefined);
  if (store === undefined) throw new ConfigError('--store', 'required (or VANE_STORE)');
  return store;
}

/** The root keys: `VANE_ROOT_KEY` or `--root-key-file`, never a key on the command line. */
function keysOf(
  context: CommandContext,
  values: Record<string, string | undefined>,
): { rootKey?: string; rootKeyFile?: string } {
  return {
    rootKey: context.env['VANE_ROOT_KEY'] || undefined,
    rootKeyFile: values['root-key-file'],
  };
}

function parse(context: CommandContext, allowPositionals: boolean): ReturnType<typeof parseArgs> {
  try {
    return parseArgs({
      args: [...context.argv],
      options: { store: { type: 'string' }, out: { type: 'string' }, 'root-key-file': { type: 'string' } },
      allowPositionals,
      strict: true,
    });
  } catch (error) {
    throw new ConfigError('arguments', (error as Error).message);
  }
}

/** `vane-server export`: a store's whole state, in state-file form. */
export const exportCommand: CliCommand = {
  name: 'export',
  usage: 'export [--store STORE] [--root-key-file FILE] [--out FILE]',
  summary: 'write the whole state of a store (a file store not in use, or PostgreSQL) as a state file',
  help: `Usage: vane-server export [--store STORE] [--root-key-file FILE] [--out FILE]

  Writes the whole state of STORE (file:PATH of a server not running, or
  postgres://…; default VANE_STORE) as a state file to FILE (mode 0600) or
  standard output. A postgres:// URL with a password goes in VANE_STORE (or
  the password in PGPASSWORD), never on the command line. The root keys:
  VANE_ROOT_KEY or --root-key-file.
  Exit code 0: written; 1: the store could not be read; 2: usage.`,
  async run(context) {
    const { values } = parse(context, false);
    const store = storeOf(context, values['store'] as string | undefined);
    try {
      const text = await exportStore(store, keysOf(context, values as Record<string, string | undefined>));
      const out = values['out'] as string | undefined;
      if (out === undefined) process.stdout.write(text);
      else {
        const { writeFile } = await import('node:fs/promises');
        await writeFile(out, text, { mode: 0o600 });
      }
      return 0;
    } catch (error) {
      context.err(`${context.program} export: ${(error as Error).message}`);
      return 1;
    }
  },
};

/** `vane-server import FILE`: an exported state (or a seed) into an empty store. */
export const importCommand: CliCommand = {
  name: 'import',
  usage: 'import [--store STORE] [--root-key-file FILE] FILE',
  summary: 'write an exported state or a seed into an empty store (nothing is ever overwritten)',
  help: `Usage: vane-server import [--store STORE] [--root-key-file FILE] FILE

  Writes FILE (an export, or a seed) into STORE (file:PATH or postgres://…;
  default VANE_STORE), which must be empty: nothing is ever overwritten. A
  postgres:// URL with a password goes in VANE_STORE (or the password in
  PGPASSWORD). The root keys: VANE_ROOT_KEY or --root-key-file.
  Exit code 0: imported; 1: refused (the store holds data) or failed; 2: usage.`,
  async run(context) {
    const { values, positionals } = parse(context, true);
    const store = storeOf(context, values['store'] as string | undefined);
    const file = positionals[0];
    if (file === undefined || positionals.length > 1) throw new ConfigError('FILE', 'give exactly one file to import');
    try {
      const { services } = await importStore(
        store,
        file,
        keysOf(context, values as Record<string, string | undefined>),
      );
      context.out(`imported ${services} service(s) from ${file}`);
      return 0;
    } catch (error) {
      context.err(`${context.program} import: ${(error as Error).message}`);
      return 1;
    }
  },
};
