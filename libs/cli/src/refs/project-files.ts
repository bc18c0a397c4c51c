/**
 * Which files `vane refs` reads: a directory's scripts, or the files of the
 * project's `tsconfig.json`, with the compiler options to resolve imports by.
 *
 * @packageDocumentation
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type * as ts from 'typescript';
import { CliError } from '../cli-error.js';
import type { TypeScript } from '../types/load-typescript.js';

/** The files to scan and how to compile them. */
export interface ProjectFiles {
  /** The directory paths in the report are relative to. */
  readonly root: string;
  readonly fileNames: readonly string[];
  readonly options: ts.CompilerOptions;
}

const SCRIPT = /\.(?:[cm]?[jt]s|[jt]sx)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'build', 'coverage', '.git']);

function defaultOptions(typescript: TypeScript): ts.CompilerOptions {
  return {
    allowJs: true,
    noEmit: true,
    // Only what the files import: every @types package of node_modules is work that finds no Vane read.
    types: [],
    skipLibCheck: true,
    experimentalDecorators: true,
    target: typescript.ScriptTarget.ES2022,
    module: typescript.ModuleKind.ESNext,
    moduleResolution: typescript.ModuleResolutionKind.Bundler,
  };
}

function walk(dir: string, found: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name) && !entry.name.startsWith('.')) walk(join(dir, entry.name), found);
    } else if (entry.isFile() && SCRIPT.test(entry.name) && !/\.d\.[cm]?ts$/.test(entry.name)) {
      found.push(join(dir, entry.name));
    }
  }
}

/**
 * With `dir`: every script under it (not `node_modules`, `dist`, hidden
 * folders or declaration files). Without: the files of `cwd`'s
 * `tsconfig.json`, else every script under `cwd`.
 *
 * @throws CliError `VANE_CLI_BAD_FILE` - a directory that is not one, a tsconfig that does not parse.
 */
export function projectFiles(typescript: TypeScript, cwd: string, dir?: string): ProjectFiles {
  if (dir !== undefined) {
    const root = resolve(cwd, dir);
    const fileNames: string[] = [];
    try {
      walk(root, fileNames);
    } catch (err) {
      throw new CliError('VANE_CLI_BAD_FILE', `--dir ${dir}: cannot read it (${(err as NodeJS.ErrnoException).code})`, {
        cause: err,
      });
    }
    return { root, fileNames: fileNames.sort(), options: defaultOptions(typescript) };
  }
  const tsconfig = join(cwd, 'tsconfig.json');
  if (!existsSync(tsconfig)) return projectFiles(typescript, cwd, '.');
  const read = typescript.readConfigFile(tsconfig, (path) => typescript.sys.readFile(path));
  if (read.error !== undefined) {
    throw new CliError(
      'VANE_CLI_BAD_FILE',
      `${tsconfig}: ${typescript.flattenDiagnosticMessageText(read.error.messageText, ' ')}`,
    );
  }
  const parsed = typescript.parseJsonConfigFileContent(read.config, typescript.sys, cwd, undefined, tsconfig);
  const fatal = parsed.errors.find(
    (error) => error.category === typescript.DiagnosticCategory.Error && error.code !== 18003,
  );
  if (fatal !== undefined) {
    throw new CliError(
      'VANE_CLI_BAD_FILE',
      `${tsconfig}: ${typescript.flattenDiagnosticMessageText(fatal.messageText, ' ')}`,
    );
  }
  const fileNames = parsed.fileNames.filter((file) => !/\.d\.[cm]?ts$/.test(file));
  return { root: cwd, fileNames, options: { ...parsed.options, noEmit: true, skipLibCheck: true } };
}
