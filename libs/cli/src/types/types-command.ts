/**
 * `vane types`: writes the declaration file of a service's keys, or with
 * `--check` tells whether the one on disk is out of date.
 *
 * @packageDocumentation
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CliError } from '../cli-error.js';
import { readKeys, type SourceContext, type SourceOptions } from '../sources/key-source.js';
import { describeChange, keyDiff, type KeyChange } from './key-diff.js';
import { loadTypeScript } from './load-typescript.js';
import { readDeclaration } from './read-declaration.js';
import { renderDeclaration } from './render-declaration.js';

/** Options of `vane types`. */
export interface TypesOptions extends SourceOptions {
  /** The file to write (or check). @default 'src/vane-keys.d.ts' */
  readonly out?: string;
  /** Write nothing; exit 1 when the file is missing or its keys differ from the service's. @default false */
  readonly check?: boolean;
}

/** What `vane types` did. */
export interface TypesResult {
  /** The declaration file's path. */
  readonly file: string;
  /** 0: written, or up to date; 1: `--check` found it out of date. */
  readonly exitCode: 0 | 1;
  /** With `--check`: the keys added, removed or retyped on the service. */
  readonly changes: readonly KeyChange[];
}

/** The default place of the declaration file. */
export const DEFAULT_TYPES_FILE = 'src/vane-keys.d.ts';

/**
 * Runs `vane types`. Reads every source before writing anything, and writes
 * the file whole (a temporary file renamed over it), so a failure leaves it
 * as it was.
 *
 * @throws CliError - a source that fails, an unreadable file to check.
 */
export async function runTypes(
  options: TypesOptions,
  context: SourceContext & { print(line: string): void },
): Promise<TypesResult> {
  const file = resolve(context.cwd, options.out ?? DEFAULT_TYPES_FILE);
  const catalog = await readKeys(options, context);
  if (options.check === true) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new CliError('VANE_CLI_BAD_FILE', `${file}: cannot read it (${(err as NodeJS.ErrnoException).code})`);
      }
      context.print(`${file} does not exist: run vane types to write it`);
      return { file, exitCode: 1, changes: [] };
    }
    const changes = keyDiff(readDeclaration(await loadTypeScript(), file, text), catalog);
    if (changes.length === 0) {
      context.print(`${file} is up to date with ${catalog.origin}`);
      return { file, exitCode: 0, changes };
    }
    context.print(`${file} is out of date with ${catalog.origin}:`);
    for (const change of changes) context.print(`  ${describeChange(change)}`);
    context.print('run vane types to write it again');
    return { file, exitCode: 1, changes };
  }
  const text = renderDeclaration(catalog, file);
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, file);
  const secrets =
    catalog.secrets === null ? 'no secrets (this key cannot see them)' : `${catalog.secrets.size} secrets`;
  context.print(
    `wrote ${file}: ${catalog.configs.size} configs, ${catalog.flags.size} flags, ${secrets} from ${catalog.origin}`,
  );
  return { file, exitCode: 0, changes: [] };
}
