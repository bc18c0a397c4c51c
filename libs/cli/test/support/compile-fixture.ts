import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';

/** One compile error: its file, 1-based line, code and flattened message. */
export interface FixtureDiagnostic {
  readonly file: string;
  readonly line: number;
  readonly code: number;
  readonly message: string;
}

/** How an app is compiled: a Nest 11, Express or Fastify app as CommonJS, a Nest 12 app as ESM. */
export type ModuleSystem = 'commonjs' | 'esm';

const COMMON: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  esModuleInterop: true,
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
  target: ts.ScriptTarget.ES2022,
  types: ['node'],
};

const OPTIONS: Record<ModuleSystem, ts.CompilerOptions> = {
  commonjs: { ...COMMON, module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10 },
  esm: { ...COMMON, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext },
};

/**
 * Compiles an app the way its project would, on the built `@vane/*` declarations. `files` are served from
 * memory at their paths (an app's file placed where its framework resolves, the generated declaration file
 * beside it); an ESM app also gets a `package.json` of `"type": "module"` in its folder.
 */
export function compileApp(
  system: ModuleSystem,
  files: Readonly<Record<string, string>>,
  oldProgram?: ts.Program,
): { diagnostics: FixtureDiagnostic[]; program: ts.Program } {
  const options = OPTIONS[system];
  const virtual = new Map(Object.entries(files));
  if (system === 'esm') {
    for (const name of Object.keys(files)) virtual.set(join(dirname(name), 'package.json'), '{ "type": "module" }\n');
  }
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => virtual.get(name) ?? readFile(name);
  host.fileExists = (name) => virtual.has(name) || fileExists(name);
  host.getSourceFile = (name, language, onError, create) => {
    const text = virtual.get(name);
    if (text !== undefined) return ts.createSourceFile(name, text, language);
    return getSourceFile(name, language, onError, create);
  };
  const roots = Object.keys(files);
  const program = ts.createProgram({ rootNames: roots, options, host, oldProgram });
  const diagnostics = ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file !== undefined && virtual.has(d.file.fileName))
    .map((d) => ({
      file: d.file!.fileName,
      line: d.file!.getLineAndCharacterOfPosition(d.start ?? 0).line + 1,
      code: d.code,
      message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
    }));
  return { diagnostics, program };
}

/** A marker line of a fixture: `// @ts-expect-error typo: KEY` or `// @ts-expect-error type: …`. */
export interface Marker {
  /** 1-based line of the marker; the line after it is the one that must not compile. */
  readonly line: number;
  readonly kind: 'typo' | 'type';
  /** For a typo: the key the compile error must name. */
  readonly key?: string;
}

/** The markers of a fixture's text. */
export function markersOf(text: string): Marker[] {
  const markers: Marker[] = [];
  text.split('\n').forEach((line, index) => {
    const typo = /\/\/ @ts-expect-error typo: (\S+)/.exec(line);
    if (typo) markers.push({ line: index + 1, kind: 'typo', key: typo[1] });
    else if (line.includes('// @ts-expect-error type:')) markers.push({ line: index + 1, kind: 'type' });
  });
  return markers;
}

/** The fixture's text with its markers blanked (same line numbers), to see the errors they expect. */
export function withoutMarkers(text: string): string {
  return text
    .split('\n')
    .map((line) => (line.includes('// @ts-expect-error') ? '' : line))
    .join('\n');
}

/** Reads a fixture file. */
export function fixtureText(path: string): string {
  return readFileSync(path, 'utf8');
}
