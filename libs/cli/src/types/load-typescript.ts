/**
 * The TypeScript compiler API, for the parts that parse code: a dependency
 * of this package (5.x or 6.x, the versions that have the API; TypeScript 7
 * has none), shared with the app's own copy when that one fits. Loaded on
 * first use, so `vane types` pays for it only with `--check`.
 *
 * @packageDocumentation
 */
import type * as ts from 'typescript';
import { CliError } from '../cli-error.js';

/** The `typescript` module's type. */
export type TypeScript = typeof ts;

/**
 * Loads `typescript`.
 *
 * @throws CliError `VANE_CLI_USAGE` - when it is missing or has no compiler API.
 */
export async function loadTypeScript(): Promise<TypeScript> {
  let loaded: TypeScript & { default?: TypeScript };
  try {
    loaded = (await import('typescript')) as TypeScript & { default?: TypeScript };
  } catch (err) {
    throw new CliError('VANE_CLI_USAGE', 'the TypeScript compiler is missing: npm install @vane/cli again', {
      cause: err,
    });
  }
  // As an ES module import, a CommonJS package is its `default`.
  const typescript = typeof loaded.createProgram === 'function' ? loaded : loaded.default;
  if (typeof typescript?.createProgram !== 'function') {
    throw new CliError('VANE_CLI_USAGE', 'the typescript package found has no compiler API (TypeScript 5 or 6 has)');
  }
  return typescript;
}
