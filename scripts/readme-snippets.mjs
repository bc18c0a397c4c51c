#!/usr/bin/env node
// Keeps the README's code examples identical to the code the tests run.
// In the documents listed below, a fenced block right after `<!-- snippet: path#name -->` must
// equal the lines between `// #region name` and `// #endregion name` in that
// file (common indentation removed).
//   node scripts/readme-snippets.mjs --check   exit 1 and list every stale block
//   node scripts/readme-snippets.mjs --write   rewrite the documents' blocks from the sources
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const MARKER = /<!-- snippet: ([^#\s]+)#([\w-]+) -->\n+```(\w*)\n([\s\S]*?)```/g;

/** The named region of a source file, dedented, or an Error saying why not. */
export function region(file, name) {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const start = lines.findIndex((l) => l.trim() === `// #region ${name}`);
  const end = lines.findIndex((l, i) => i > start && l.trim() === `// #endregion ${name}`);
  if (start === -1 || end === -1) throw new Error(`${file}: no region "${name}"`);
  const body = lines.slice(start + 1, end);
  const indent = Math.min(...body.filter((l) => l.trim() !== '').map((l) => l.length - l.trimStart().length));
  return body.map((l) => l.slice(indent)).join('\n') + '\n';
}

/** Every snippet of the README with the source text it must show. */
export function snippets(readme) {
  return [...readme.matchAll(MARKER)].map((m) => ({
    file: m[1],
    name: m[2],
    lang: m[3],
    shown: m[4],
    full: m[0],
    source: region(m[1], m[2]),
  }));
}

/** The documents whose snippets are kept, relative to the repository root. */
export const DOCUMENTS = [
  'README.md',
  'docs/protocol.md',
  'docs/sample-apps.md',
  'docs/outages-and-rotation.md',
  'docs/operating.md',
  'docs/testing-with-the-server.md',
  'libs/browser/README.md',
  'libs/client/README.md',
  'libs/express/README.md',
  'libs/nestjs/README.md',
  'libs/fastify/README.md',
  'libs/openfeature/README.md',
  'libs/server/README.md',
];

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let count = 0;
  let staleCount = 0;
  for (const document of DOCUMENTS) {
    const path = join(root, document);
    let text = readFileSync(path, 'utf8');
    const all = snippets(text);
    const stale = all.filter((s) => s.shown !== s.source);
    count += all.length;
    staleCount += stale.length;
    if (process.argv.includes('--write')) {
      for (const s of stale) {
        text = text.replace(s.full, `<!-- snippet: ${s.file}#${s.name} -->\n\`\`\`${s.lang}\n${s.source}\`\`\``);
      }
      if (stale.length > 0) writeFileSync(path, text);
    } else {
      for (const s of stale) console.error(`${document}: the snippet ${s.file}#${s.name} differs from its source`);
    }
  }
  if (process.argv.includes('--write')) {
    console.log(`${count} snippets, ${staleCount} rewritten`);
  } else {
    console.log(`${count} snippets, ${staleCount} stale`);
    if (staleCount > 0) process.exitCode = 1;
  }
}
