import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';
import { compileApp } from '../libs/cli/test/support/compile-fixture.js';

// Every TypeScript block of the documents, type-checked against the built packages as a reader's app
// would see them (`@vane/*` through their `exports`, the frameworks from node_modules). Blocks cut from
// tested files (`<!-- snippet: … -->`) compile with those files already; the others are written by hand,
// and drift from the types unless checked: here they are. A block that is a fragment reads the names it
// leaves undeclared (`app`, `vane`, `client` …) from its document's context (fixtures/readme-typescript),
// the way the text around it introduces them; an elision is a comment (`/* … */`). A block that
// describes a type its package exports (`interface StateUpdate { … }` in libs/client/README.md) must
// describe that type: each is assignable to the other.
const ROOT = resolve(__dirname, '..');
const CONTEXTS = join(__dirname, 'fixtures/readme-typescript');

/** A ```ts block written by hand: where it is, and its code. */
interface Block {
  readonly document: string;
  readonly line: number;
  readonly code: string;
}

/** The READMEs and guides git lists (API reports and fixtures are not written for readers to copy). */
function documents(): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((file) => /(^|\/)README\.md$|^docs\//.test(file) && !/node_modules\/|fixtures\//.test(file));
}

const FENCE = /(<!-- snippet: [^\n]+ -->\n+)?```(?:ts|typescript)\n([\s\S]*?)```/g;

/** The hand-written TypeScript blocks of `document`. */
function handWrittenBlocks(document: string): Block[] {
  const text = readFileSync(join(ROOT, document), 'utf8');
  return [...text.matchAll(FENCE)]
    .filter((match) => match[1] === undefined)
    .map((match) => ({ document, line: text.slice(0, match.index).split('\n').length + 1, code: match[2]! }));
}

/** The context file of a document, when it has one: `README.md` → `README.md.d.ts`, `libs/x/README.md` → `libs-x-README.md.d.ts`. */
function contextOf(document: string): string | undefined {
  const file = join(CONTEXTS, `${document.replaceAll('/', '-')}.d.ts`);
  try {
    readFileSync(file);
    return file;
  } catch {
    return undefined;
  }
}

/** The package a document is the guide of: `libs/client/README.md` → `@vane/client`. */
function packageOf(document: string): string | undefined {
  const lib = /^libs\/([^/]+)\/README\.md$/.exec(document)?.[1];
  return lib === undefined ? undefined : `@vane/${lib}`;
}

/**
 * The lines that hold each top-level type a block declares (`interface X`, `type X =`) to the type of
 * the same name its package exports, when it exports one: assignable both ways, or a compile error.
 */
function sameAsExported(block: Block, exported: ReadonlySet<string>): string {
  const pkg = packageOf(block.document);
  const declared = [...block.code.matchAll(/^(?:export )?(?:interface|type) (\w+)\b/gm)].map((m) => m[1]!);
  const described = declared.filter((name) => exported.has(name));
  if (pkg === undefined || described.length === 0) return '';
  return [
    `import type { ${described.map((name) => `${name} as Exported${name}`).join(', ')} } from '${pkg}';`,
    ...described.map(
      (name) =>
        `const same${name}: [[${name}] extends [Exported${name}] ? true : false, [Exported${name}] extends [${name}] ? true : false] = [true, true];\n` +
        `void same${name};`,
    ),
  ].join('\n');
}

/** The names a package's main entry exports (types included), from its built declarations. */
function exportsOf(pkg: string): Set<string> {
  const dir = join(ROOT, 'libs', pkg.replace('@vane/', ''));
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    exports: { '.': { import: { types: string } } };
  };
  const entry = join(dir, manifest.exports['.'].import.types);
  const program = ts.createProgram([entry], { noEmit: true, skipLibCheck: true, types: ['node'] });
  const module = program.getTypeChecker().getSymbolAtLocation(program.getSourceFile(entry)!)!;
  return new Set(
    program
      .getTypeChecker()
      .getExportsOfModule(module)
      .map((symbol) => symbol.name),
  );
}

/**
 * Type-checks `blocks` in one program, each block a module of its own in an ES module app at the root
 * (compileApp, the CLI tests' compiler on the built declarations), with their documents' contexts: the
 * errors, as `document:line: message`.
 */
function check(blocks: readonly Block[], exported: (document: string) => ReadonlySet<string>): string[] {
  const dir = join(ROOT, '.readme-typescript');
  const files: Record<string, string> = {};
  const at = new Map<string, Block>();
  for (const block of blocks) {
    const file = join(dir, `${block.document.replaceAll('/', '-')}-${block.line}.mts`); // .mts: an ES module, top-level await and all
    files[file] = `${block.code}\n${sameAsExported(block, exported(block.document))}\nexport {};\n`;
    at.set(file, block);
  }
  for (const context of new Set(blocks.map((b) => contextOf(b.document)))) {
    if (context !== undefined) files[join(dir, basename(context))] = readFileSync(context, 'utf8');
  }
  return compileApp('esm', files).diagnostics.map(({ file, line, message }) => {
    const block = at.get(file);
    if (block === undefined) return `${relative(ROOT, file)}:${line}: ${message}`;
    if (line > block.code.split('\n').length) {
      return `${block.document}:${block.line}: a type the block describes is not the one its package exports (${message})`;
    }
    return `${block.document}:${block.line + line - 1}: ${message}`;
  });
}

/** A block that registers a schema augments `@vane/client` for its whole program: it is checked alone. */
const augments = (block: Block): boolean => /declare module ['"]@vane\//.test(block.code);

describe('the TypeScript blocks of the documents', () => {
  const all = documents().flatMap(handWrittenBlocks);

  it('are there to check', () => {
    expect(all.length).toBeGreaterThan(20);
  });

  it('compile against the packages, as the text around them introduces them', () => {
    const byDocument = new Map<string, Block[]>();
    for (const block of all.filter((b) => !augments(b))) {
      byDocument.set(block.document, [...(byDocument.get(block.document) ?? []), block]);
    }
    const cache = new Map<string, Set<string>>();
    const exported = (document: string): ReadonlySet<string> => {
      const pkg = packageOf(document);
      if (pkg === undefined) return new Set();
      if (!cache.has(pkg)) cache.set(pkg, exportsOf(pkg));
      return cache.get(pkg)!;
    };
    const errors = [
      // One program per document: a document's context declares its names once.
      ...[...byDocument.values()].flatMap((blocks) => check(blocks, exported)),
      ...all.filter(augments).flatMap((block) => check([block], exported)),
    ];
    expect(errors).toEqual([]);
  });
});
