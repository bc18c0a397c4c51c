/**
 * Reads back the keys of a declaration file `vane types` wrote, with the
 * TypeScript parser, for `vane types --check`.
 *
 * @packageDocumentation
 */
import type * as ts from 'typescript';
import { CliError } from '../cli-error.js';
import type { TypeScript } from './load-typescript.js';

/** The keys a declaration file registers: config types, flag keys, secret types (`null`: none declared). */
export interface DeclaredKeys {
  readonly configs: ReadonlyMap<string, string>;
  readonly flags: ReadonlySet<string>;
  readonly secrets: ReadonlyMap<string, string> | null;
}

function nameOf(typescript: TypeScript, name: ts.PropertyName): string | undefined {
  if (typescript.isIdentifier(name) || typescript.isStringLiteral(name)) return name.text;
  return undefined;
}

function members(typescript: TypeScript, node: ts.TypeNode | undefined): Map<string, ts.TypeNode> {
  const found = new Map<string, ts.TypeNode>();
  if (node === undefined || !typescript.isTypeLiteralNode(node)) return found;
  for (const member of node.members) {
    if (!typescript.isPropertySignature(member) || member.type === undefined) continue;
    const name = nameOf(typescript, member.name);
    if (name !== undefined) found.set(name, member.type);
  }
  return found;
}

/** The text inside `DeclaredConfig<…>`, as written. */
function configType(typescript: TypeScript, node: ts.TypeNode, file: ts.SourceFile): string {
  if (typescript.isTypeReferenceNode(node) && node.typeArguments?.length === 1) {
    return node.typeArguments[0]!.getText(file);
  }
  return node.getText(file);
}

/**
 * Parses `text` (the file at `file`) and returns the keys of its
 * `VaneRegister` schema.
 *
 * @throws CliError `VANE_CLI_BAD_FILE` - when the file registers no schema.
 */
export function readDeclaration(typescript: TypeScript, file: string, text: string): DeclaredKeys {
  const source = typescript.createSourceFile(file, text, typescript.ScriptTarget.Latest, true);
  let schema: ts.TypeNode | undefined;
  const visit = (node: ts.Node): void => {
    if (typescript.isInterfaceDeclaration(node) && node.name.text === 'VaneRegister') {
      for (const member of node.members) {
        if (typescript.isPropertySignature(member) && nameOf(typescript, member.name) === 'schema')
          schema = member.type;
      }
    }
    typescript.forEachChild(node, visit);
  };
  visit(source);
  if (schema === undefined) {
    throw new CliError('VANE_CLI_BAD_FILE', `${file}: no VaneRegister schema in it (was it written by vane types?)`);
  }
  const parts = members(typescript, schema);
  const configs = new Map<string, string>();
  for (const [key, node] of members(typescript, parts.get('configs')))
    configs.set(key, configType(typescript, node, source));
  const flags = new Set<string>();
  let flagList = parts.get('flags');
  if (flagList !== undefined && typescript.isTypeOperatorNode(flagList)) flagList = flagList.type;
  if (flagList !== undefined && typescript.isTupleTypeNode(flagList)) {
    for (const element of flagList.elements) {
      if (typescript.isLiteralTypeNode(element) && typescript.isStringLiteral(element.literal)) {
        flags.add(element.literal.text);
      }
    }
  }
  const secretNode = parts.get('secrets');
  let secrets: Map<string, string> | null = null;
  if (secretNode !== undefined) {
    secrets = new Map();
    for (const [name, node] of members(typescript, secretNode)) {
      const type =
        typescript.isLiteralTypeNode(node) && typescript.isStringLiteral(node.literal)
          ? node.literal.text
          : node.getText(source);
      secrets.set(name, type);
    }
  }
  return { configs, flags, secrets };
}
