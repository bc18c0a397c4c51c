/**
 * The TypeScript compiler, a peer dependency: the app's own, so `vane refs`
 * parses its code as its build does. Loaded only by the parts that parse.
 *
 * @packageDocumentation
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as ts from 'typescript';
import { CliError } from '../cli-error.js';

/** The `typescript` module's type. */
export type TypeScript = typeof ts;

/**
 * Loads `typescript`, the app's own (resolved from `dir`) when it has one,
 * else the one beside this package.
 *
 * @throws CliError `VANE_CLI_USAGE` - with an `npm install` hint when neither exists.
 */
export function loadTypeScript(dir: string = process.cwd()): TypeScript {
  // The ES module build has no __filename: there, the app's copy is the one place to look.
  const here = typeof __filename === 'string' ? [__filename] : [];
  for (const from of [join(dir, 'package.json'), ...here]) {
    try {
      return createRequire(from)('typescript') as TypeScript;
    } catch {
      // Try the next place.
    }
  }
  throw new CliError('VANE_CLI_USAGE', 'this command needs the TypeScript compiler: npm install --save-dev typescript');
}
