import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { DEFAULT_FAILED_ATTEMPT_THROTTLE } from '../domain/failed-attempt-throttle.js';
import { DEFAULT_REBALANCE } from '../fleet/rebalancer.js';
import { POSTGRES_CHANGE_LOG_DEFAULTS } from '../postgres/postgres-change-log.js';
import { VANE_SERVER_DEFAULTS } from './vane-server-options.js';

/** The text of every `@default` tag of an interface's members, by member path (`tls.watchIntervalMs`). */
function tsdocDefaults(file: string, interfaceName: string): Map<string, string> {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found = new Map<string, string>();
  const visitMembers = (members: ts.NodeArray<ts.TypeElement>, prefix: string): void => {
    for (const member of members) {
      if (!ts.isPropertySignature(member)) continue;
      const path = prefix + member.name.getText(source);
      for (const tag of ts.getJSDocTags(member)) {
        if (tag.tagName.text === 'default') found.set(path, ts.getTextOfJSDocComment(tag.comment) ?? '');
      }
      if (member.type !== undefined && ts.isTypeLiteralNode(member.type)) visitMembers(member.type.members, `${path}.`);
    }
  };
  ts.forEachChild(source, (node) => {
    if (ts.isInterfaceDeclaration(node) && node.name.text === interfaceName) visitMembers(node.members, '');
  });
  if (found.size === 0) throw new Error(`no @default in ${interfaceName} of ${file}`);
  return found;
}

/** The value a `@default` line starts with, when it starts with a number or a quoted string. */
function leadingLiteral(text: string): number | string | undefined {
  const number = /^-?\d[\d_]*(\.\d+)?(?=\s|$)/.exec(text);
  if (number) return Number(number[0].replaceAll('_', ''));
  const quoted = /^'([^']*)'/.exec(text);
  return quoted ? quoted[1] : undefined;
}

/** Every leading literal of the `@default` lines, by member path. */
function literalDefaults(defaults: Map<string, string>): Map<string, number | string> {
  const literals = new Map<string, number | string>();
  for (const [path, text] of defaults) {
    const literal = leadingLiteral(text);
    if (literal !== undefined) literals.set(path, literal);
  }
  return literals;
}

const here = __dirname;

describe('the defaults are written once', () => {
  it("VaneServerOptions' @default lines say the values of VANE_SERVER_DEFAULTS, and nothing else is a plain default", () => {
    const defaults = tsdocDefaults(join(here, 'vane-server-options.ts'), 'VaneServerOptions');
    const { tlsWatchIntervalMs, ...topLevel } = VANE_SERVER_DEFAULTS;
    const table = new Map<string, number | string>([
      ...Object.entries(topLevel),
      ['tls.watchIntervalMs', tlsWatchIntervalMs],
    ]);
    expect(literalDefaults(defaults)).toEqual(table);
    // Derived from another default, written where it is decided: its figure in the TSDoc is held here.
    expect(defaults.get('historyBytes')).toBe(
      `twice \`streamBufferBytes\` (${2 * VANE_SERVER_DEFAULTS.streamBufferBytes})`,
    );
    // The throttle's default is written out as an object: each member as DEFAULT_FAILED_ATTEMPT_THROTTLE has it.
    const throttle = Object.fromEntries(
      [...(defaults.get('authThrottle') ?? '').matchAll(/(\w+): (\d+)/g)].map(([, name, value]) => [
        name,
        Number(value),
      ]),
    );
    expect(throttle).toEqual({ ...DEFAULT_FAILED_ATTEMPT_THROTTLE });
  });

  it("RebalanceOptions' and FailedAttemptThrottleOptions' @default lines say their DEFAULT_ tables", () => {
    const rebalance = literalDefaults(tsdocDefaults(join(here, '..', 'fleet', 'rebalancer.ts'), 'RebalanceOptions'));
    expect(Object.fromEntries(rebalance)).toEqual({ ...DEFAULT_REBALANCE });
    const throttle = literalDefaults(
      tsdocDefaults(join(here, '..', 'domain', 'failed-attempt-throttle.ts'), 'FailedAttemptThrottleOptions'),
    );
    expect(Object.fromEntries(throttle)).toEqual({ ...DEFAULT_FAILED_ATTEMPT_THROTTLE });
  });

  it("PostgresChangeLogOptions' @default lines say POSTGRES_CHANGE_LOG_DEFAULTS, and the store check's interval is the server's", () => {
    const log = literalDefaults(
      tsdocDefaults(join(here, '..', 'postgres', 'postgres-change-log.ts'), 'PostgresChangeLogOptions'),
    );
    expect(Object.fromEntries(log)).toEqual({ ...POSTGRES_CHANGE_LOG_DEFAULTS });
    expect(POSTGRES_CHANGE_LOG_DEFAULTS.checkIntervalMs).toBe(VANE_SERVER_DEFAULTS.storeCheckIntervalMs);
  });
});
