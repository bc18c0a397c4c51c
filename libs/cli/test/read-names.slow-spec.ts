import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as ts from 'typescript';
import { runRefs } from '../src/refs/refs-command.js';
import { VANE_DECORATORS, VANE_METHODS } from '../src/refs/vane-read-names.js';

// `vane refs` finds reads by name (refs/vane-read-names.ts). A read method added to a package and not to
// that table would be missed without a word: here the table is checked against the packages' public
// types, and each of its names is found in a fixture that calls it.
// Each part builds a TypeScript program: seconds on a loaded machine.
jest.setTimeout(120_000);

const LIBS = resolve(__dirname, '../..');

/** The declaration files of the main entries of the packages an app reads keys through (the built ones). */
function entryDeclarations(): string[] {
  return ['client', 'nestjs', 'express', 'fastify'].map((lib) => {
    const manifest = JSON.parse(readFileSync(join(LIBS, lib, 'package.json'), 'utf8')) as {
      exports: { '.': { require: { types: string } } };
    };
    return join(LIBS, lib, manifest.exports['.'].require.types);
  });
}

/**
 * Every `Type.method` of the entries' exported classes, interfaces and type aliases, and every exported
 * `function()`, whose first parameter is named `key` or `keys`: the shape of a read.
 */
function keyedMembers(): { methods: Map<string, string>; functions: Set<string> } {
  const files = entryDeclarations();
  const program = ts.createProgram(files, { noEmit: true, skipLibCheck: true, strict: true, types: ['node'] });
  const checker = program.getTypeChecker();
  const methods = new Map<string, string>();
  const functions = new Set<string>();
  const keyed = (signatures: readonly ts.Signature[]): boolean =>
    signatures.some((signature) => /^keys?$/.test(signature.getParameters()[0]?.name ?? ''));
  for (const file of files) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
    for (const exported of checker.getExportsOfModule(module)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      if (symbol.flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias)) {
        for (const member of checker.getDeclaredTypeOfSymbol(symbol).getProperties()) {
          if (keyed(checker.getTypeOfSymbol(member).getCallSignatures())) {
            methods.set(`${symbol.name}.${member.name}`, member.name);
          }
        }
      }
      if (symbol.flags & ts.SymbolFlags.Function && keyed(checker.getTypeOfSymbol(symbol).getCallSignatures())) {
        functions.add(symbol.name);
      }
    }
  }
  return { methods, functions };
}

/** Members that take a key and read nothing an app depends on: what each is instead. */
const NOT_READS: Readonly<Record<string, string>> = {
  'VaneClient.setSecret': 'a write',
  'VaneClient.deleteSecret': 'a write',
  'VaneClient.deleteSecretVersion': 'a write',
  'RedisCommands.get': "the last-known-good Redis store's command, its key a Redis key",
  'RedisCommands.set': "the last-known-good Redis store's command, its key a Redis key",
  'VaneTelemetry.recordFlag': 'a hook the client calls with the flag it evaluated',
  'VaneHealthIndicator.isHealthy': "Terminus' indicator name",
};

describe("vane refs's read names against the public API", () => {
  let found: ReturnType<typeof keyedMembers>;
  beforeAll(() => {
    found = keyedMembers();
  });

  it('every method of the public types that takes a key is a read name, or named here as no read', () => {
    const unlisted = [...found.methods]
      .filter(([member, name]) => !VANE_METHODS.has(name) && NOT_READS[member] === undefined)
      .map(([member]) => member);
    expect(unlisted).toEqual([]);
    // Nothing named as no read is a read name too, and every entry of NOT_READS still exists.
    for (const member of Object.keys(NOT_READS)) {
      expect(found.methods.get(member)).toBe(member.split('.')[1]);
      expect(VANE_METHODS.has(member.split('.')[1]!)).toBe(false);
    }
  });

  it('every read name is a method of the public types, every keyed function a decorator it knows', () => {
    const methodNames = new Set(found.methods.values());
    expect([...VANE_METHODS.keys()].filter((name) => !methodNames.has(name))).toEqual([]);
    expect([...found.functions].sort()).toEqual([...VANE_DECORATORS.keys()].sort());
  });
});

describe('vane refs finds a read through each of its names', () => {
  it('in a fixture that calls each name once, with the kind of key it reads', async () => {
    const dir = join(__dirname, 'fixtures/every-read');
    const { report } = await runRefs(
      { dir, json: true },
      { cwd: dir, env: {}, print: () => undefined, warn: () => undefined },
    );
    const uses = report.uses.map((u) => `${u.kind} ${u.key ?? `(${u.expression})`} ${u.file}:${u.line} ${u.via}`);
    expect(uses).toEqual([
      'config db.host reads.ts:22 config',
      'config db.pool.max reads.ts:23 configLookup',
      'flag new-checkout reads.ts:24 flag',
      'flag beta reads.ts:25 flagState',
      'secret stripe.api_key reads.ts:26 secret',
      'secret tls.client_pem reads.ts:27 secretFile',
      'secret stripe.api_key reads.ts:28 secretInfo',
      'secret stripe.api_key reads.ts:29 requireSecret',
      'secret tls.client_pem reads.ts:30 requireSecretFile',
      'flag new-pricing reads.ts:31 evaluateAb',
      'flag dark-mode reads.ts:32 evaluateAbCached',
      'flag new-pricing reads.ts:33 ab',
      'flag new-checkout reads.ts:34 requireFlag',
      'flag beta reads.ts:35 requireFlag',
      'config db.pool.max reads.ts:36 config$',
      'flag beta reads.ts:37 flag$',
      'flag new-checkout reads.ts:38 state',
      'flag new-pricing reads.ts:39 stateNow',
      'flag new-checkout reads.ts:44 @FeatureFlag',
      'flag beta reads.ts:45 @Flag',
      'secret stripe.api_key reads.ts:45 @Secret',
    ]);
    const vias = new Set(report.uses.map((u) => u.via.replace(/^@/, '')));
    expect([...VANE_METHODS.keys(), ...VANE_DECORATORS.keys()].filter((name) => !vias.has(name))).toEqual([]);
  });
});
