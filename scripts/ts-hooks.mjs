// Module hooks: `.ts` files compiled by @swc/core; `./x.js` specifiers from a
// `.ts` file mapped to `./x.ts`; `@vane/*` mapped to the workspaces' sources
// (as jest.preset.cjs does); `__dirname` and `__filename` defined for the
// files that use them.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { transformSync } from '@swc/core';

const root = fileURLToPath(new URL('../', import.meta.url));
const workspaces = new Set(['client', 'server', 'nestjs', 'express']);

export async function resolve(specifier, context, next) {
  const scoped = /^@vane\/([a-z-]+)$/.exec(specifier);
  if (scoped && workspaces.has(scoped[1])) {
    return { url: pathToFileURL(join(root, 'libs', scoped[1], 'src', 'index.ts')).href, shortCircuit: true };
  }
  if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
    const ts = new URL(specifier, context.parentURL).href.replace(/\.js$/, '.ts');
    if (existsSync(fileURLToPath(ts))) return { url: ts, shortCircuit: true };
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (!url.endsWith('.ts')) return next(url, context);
  const filename = fileURLToPath(url);
  const { code } = transformSync(await readFile(filename, 'utf8'), {
    filename,
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'es6' },
    sourceMaps: 'inline',
  });
  // Our test helpers are written for jest, which compiles them to CommonJS: give them the CommonJS
  // names they use (the benchmarks that drive the browser apps import them).
  const cjsNames = /\b__(dirname|filename)\b/.test(code) && !/\b(const|let|var)\s+__(dirname|filename)\b/.test(code);
  const source = cjsNames ? `const __dirname = import.meta.dirname, __filename = import.meta.filename;\n${code}` : code;
  return { format: 'module', source, shortCircuit: true };
}
