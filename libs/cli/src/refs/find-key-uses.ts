/**
 * Finds every Vane key an app's code reads, with the TypeScript compiler
 * API: the type checker tells a Vane method or decorator from another of
 * the same name, and a key held in a constant from one built at run time.
 *
 * @packageDocumentation
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import type * as ts from 'typescript';
import type { TypeScript } from '../types/load-typescript.js';
import type { KeyKind, KeyUse } from './key-use.js';
import type { ProjectFiles } from './project-files.js';
import { OPENFEATURE_DECORATORS, OPENFEATURE_METHODS, VANE_DECORATORS, VANE_METHODS } from './vane-read-names.js';

/** Where a symbol comes from: a package name (`@vane/client`), `local` (the app's code), or `unknown`. */
type Origin = string;

/** A key argument, read: literal keys, and the expressions that are not. */
interface KeyArgument {
  readonly keys: readonly { key: string; node: ts.Node }[];
  readonly dynamic: readonly ts.Node[];
}

/** Finds the key uses of a project; create one per scan. */
class KeyUseScanner {
  readonly #ts: TypeScript;
  readonly #project: ProjectFiles;
  readonly #checker: ts.TypeChecker;
  readonly #program: ts.Program;
  readonly #packageNames = new Map<string, string | null>();
  readonly uses: KeyUse[] = [];
  /** Whether the app registers the Vane OpenFeature provider (imports `@vane/openfeature`). */
  #usesVaneProvider = false;

  constructor(typescript: TypeScript, project: ProjectFiles) {
    this.#ts = typescript;
    this.#project = project;
    this.#program = typescript.createProgram(project.fileNames as string[], project.options);
    this.#checker = this.#program.getTypeChecker();
  }

  scan(): KeyUse[] {
    const files = this.#project.fileNames
      .map((name) => this.#program.getSourceFile(name))
      .filter((file): file is ts.SourceFile => file !== undefined);
    this.#usesVaneProvider = files.some((file) => this.#importsVaneProvider(file));
    for (const file of files) this.#visit(file, file);
    return this.uses.sort(
      (a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.line - b.line || a.column - b.column,
    );
  }

  /** An `import … from '@vane/openfeature'`, `import('@vane/openfeature')` or `require('@vane/openfeature')` anywhere in `node`. */
  #importsVaneProvider(node: ts.Node): boolean {
    const t = this.#ts;
    const named = (specifier: ts.Node | undefined): boolean =>
      specifier !== undefined && t.isStringLiteral(specifier) && specifier.text === '@vane/openfeature';
    if (t.isImportDeclaration(node) || t.isExportDeclaration(node)) return named(node.moduleSpecifier);
    if (t.isCallExpression(node)) {
      const dynamicImport = node.expression.kind === t.SyntaxKind.ImportKeyword;
      const required = t.isIdentifier(node.expression) && node.expression.text === 'require';
      if ((dynamicImport || required) && named(node.arguments[0])) return true;
    }
    return t.forEachChild(node, (child) => this.#importsVaneProvider(child) || undefined) === true;
  }

  #visit(node: ts.Node, file: ts.SourceFile): void {
    const t = this.#ts;
    if (t.isCallExpression(node)) this.#call(node, file);
    else if (t.isPropertyAssignment(node)) this.#routeOption(node, file);
    t.forEachChild(node, (child) => this.#visit(child, file));
  }

  /** `x.method(key)`, `Decorator(key)` (a decorator is a call too). */
  #call(call: ts.CallExpression, file: ts.SourceFile): void {
    const t = this.#ts;
    const callee = call.expression;
    const first = call.arguments[0];
    if (t.isPropertyAccessExpression(callee)) {
      const name = callee.name.text;
      const vaneKind = VANE_METHODS.get(name);
      const ofKind = OPENFEATURE_METHODS.get(name);
      if (vaneKind === undefined && ofKind === undefined) return;
      const origin = this.#originOf(callee.name);
      if (
        vaneKind !== undefined &&
        (origin.startsWith('@vane/') || (origin === 'unknown' && this.#namesVane(callee.expression)))
      ) {
        if (first !== undefined) this.#record(vaneKind, name, first, file);
        return;
      }
      if (ofKind !== undefined && this.#usesVaneProvider && origin.startsWith('@openfeature/')) {
        if (first !== undefined) this.#record(ofKind, name, first, file);
      }
      return;
    }
    if (!t.isIdentifier(callee)) return;
    const name = callee.text;
    const vaneKind = VANE_DECORATORS.get(name);
    const ofKind = OPENFEATURE_DECORATORS.get(name);
    if (vaneKind === undefined && ofKind === undefined) return;
    const origin = this.#originOf(callee);
    if (vaneKind !== undefined && origin === '@vane/nestjs') {
      if (first !== undefined) this.#record(vaneKind, `@${name}`, first, file);
    } else if (ofKind !== undefined && this.#usesVaneProvider && origin === '@openfeature/nestjs-sdk') {
      for (const argument of call.arguments) this.#flagKeyMembers(argument, ofKind, `@${name}`, file);
    }
  }

  /** Fastify's route option `{ config: { vane: { flags } } }` (or an array of such requirements). */
  #routeOption(node: ts.PropertyAssignment, file: ts.SourceFile): void {
    const t = this.#ts;
    if (this.#propertyName(node) !== 'flags') return;
    let requirement: ts.Node = node.parent;
    if (!t.isObjectLiteralExpression(requirement)) return;
    if (t.isArrayLiteralExpression(requirement.parent)) requirement = requirement.parent;
    const vane = requirement.parent;
    if (!t.isPropertyAssignment(vane) || this.#propertyName(vane) !== 'vane') return;
    const config = vane.parent.parent;
    if (!t.isPropertyAssignment(config) || this.#propertyName(config) !== 'config') return;
    this.#record('flag', 'config.vane.flags', node.initializer, file);
  }

  /** `flagKey` members of OpenFeature decorator options, at any depth (`{ flags: [{ flagKey }] }`). */
  #flagKeyMembers(node: ts.Node, kind: KeyKind, via: string, file: ts.SourceFile): void {
    const t = this.#ts;
    if (t.isPropertyAssignment(node) && this.#propertyName(node) === 'flagKey') {
      this.#record(kind, via, node.initializer, file);
      return;
    }
    t.forEachChild(node, (child) => this.#flagKeyMembers(child, kind, via, file));
  }

  #propertyName(node: ts.PropertyAssignment): string | undefined {
    const name = node.name;
    return this.#ts.isIdentifier(name) || this.#ts.isStringLiteral(name) ? name.text : undefined;
  }

  /** For code the checker cannot type (plain JavaScript): a receiver named `vane` (`req.vane`, `app.vane`, `vane`). */
  #namesVane(receiver: ts.Expression): boolean {
    const t = this.#ts;
    let node: ts.Expression = receiver;
    for (;;) {
      if (t.isIdentifier(node)) return /vane/i.test(node.text);
      if (t.isPropertyAccessExpression(node)) {
        if (/vane/i.test(node.name.text)) return true;
        node = node.expression;
        continue;
      }
      return false;
    }
  }

  #record(kind: KeyKind, via: string, argument: ts.Expression, file: ts.SourceFile): void {
    const { keys, dynamic } = this.#keysOf(argument);
    for (const { key, node } of keys) this.uses.push({ kind, key, via, ...this.#place(node, file) });
    for (const node of dynamic) {
      this.uses.push({ kind, key: null, expression: node.getText(file), via, ...this.#place(node, file) });
    }
  }

  /** Literal keys (written, or a constant's literal type), arrays of them, and what is neither. */
  #keysOf(argument: ts.Expression): KeyArgument {
    const t = this.#ts;
    if (t.isStringLiteral(argument) || t.isNoSubstitutionTemplateLiteral(argument)) {
      return { keys: [{ key: argument.text, node: argument }], dynamic: [] };
    }
    if (t.isArrayLiteralExpression(argument)) {
      const keys: { key: string; node: ts.Node }[] = [];
      const dynamic: ts.Node[] = [];
      for (const element of argument.elements) {
        const inner = this.#keysOf(element);
        keys.push(...inner.keys);
        dynamic.push(...inner.dynamic);
      }
      return { keys, dynamic };
    }
    // A constant (`const KEY = 'a'`, `as const` tuples): its type says exactly which keys it holds.
    const type = this.#checker.getTypeAtLocation(argument);
    if (type.isStringLiteral()) return { keys: [{ key: type.value, node: argument }], dynamic: [] };
    if (this.#checker.isTupleType(type)) {
      const elements = this.#checker.getTypeArguments(type as ts.TypeReference);
      if (elements.length > 0 && elements.every((element) => element.isStringLiteral())) {
        return {
          keys: elements.map((element) => ({ key: (element as ts.StringLiteralType).value, node: argument })),
          dynamic: [],
        };
      }
    }
    return { keys: [], dynamic: [argument] };
  }

  #place(node: ts.Node, file: ts.SourceFile): { file: string; line: number; column: number } {
    const { line, character } = file.getLineAndCharacterOfPosition(node.getStart(file));
    return {
      file: relative(this.#project.root, file.fileName).split(sep).join('/'),
      line: line + 1,
      column: character + 1,
    };
  }

  /** Which package declares what `node` names, following imports; `unknown` when the checker cannot tell. */
  #originOf(node: ts.Node): Origin {
    const t = this.#ts;
    let symbol = this.#checker.getSymbolAtLocation(node);
    if (symbol === undefined) return 'unknown';
    if (symbol.flags & t.SymbolFlags.Alias) {
      // The import's own specifier: known even when the package's types cannot be resolved.
      const name = this.#importedFrom(symbol.declarations?.[0]);
      if (name !== undefined && (name.startsWith('@vane/') || name.startsWith('@openfeature/'))) {
        return name.split('/').slice(0, 2).join('/');
      }
      symbol = this.#checker.getAliasedSymbol(symbol);
    }
    const declarations = symbol.declarations ?? [];
    if (declarations.length === 0) return 'unknown';
    for (const declaration of declarations) {
      const name = this.#packageOf(declaration.getSourceFile().fileName);
      if (name !== null) return name;
    }
    return 'local';
  }

  /** The module an import binding (`import { x } from 'm'`, `import x = require('m')`) comes from. */
  #importedFrom(binding: ts.Node | undefined): string | undefined {
    const t = this.#ts;
    for (let node = binding; node !== undefined && !t.isSourceFile(node); node = node.parent) {
      if (t.isImportDeclaration(node))
        return t.isStringLiteral(node.moduleSpecifier) ? node.moduleSpecifier.text : undefined;
      if (t.isImportEqualsDeclaration(node)) {
        const reference = node.moduleReference;
        return t.isExternalModuleReference(reference) && t.isStringLiteral(reference.expression)
          ? reference.expression.text
          : undefined;
      }
    }
    return undefined;
  }

  /** The name of the package a file belongs to (the nearest `package.json` with a `name`), or `null`. */
  #packageOf(file: string): string | null {
    let dir = dirname(file);
    const visited: string[] = [];
    let name: string | null = null;
    for (;;) {
      const known = this.#packageNames.get(dir);
      if (known !== undefined) {
        name = known;
        break;
      }
      visited.push(dir);
      const manifest = join(dir, 'package.json');
      if (existsSync(manifest)) {
        try {
          const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown };
          if (typeof parsed.name === 'string') {
            name = parsed.name;
            break;
          }
        } catch {
          // A broken manifest names nothing: look further up.
        }
      }
      const parent = dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
    for (const seen of visited) this.#packageNames.set(seen, name);
    return name;
  }
}

/**
 * Every read of a Vane key in the project's files, sorted by file and
 * place: decorators (`@FeatureFlag`, `@Flag`, `@Secret`), client and
 * request reads (`config`, `flag`, `secret`, … on the client, `req.vane`,
 * `request.vane`, observables), flag guards (`requireFlag`, Fastify's
 * `config.vane.flags`), and OpenFeature evaluations when the app uses the
 * Vane provider. A key built at run time is reported with `key: null`.
 */
export function findKeyUses(typescript: TypeScript, project: ProjectFiles): KeyUse[] {
  return new KeyUseScanner(typescript, project).scan();
}
