import type { ConfigSchema, OptionSchema } from './load-config.js';
import { camelName, envName, kebabName, type Program } from './option-spec.js';

/** A command as the help lists it. */
export interface CommandSummary {
  readonly usage: string;
  readonly summary: string;
}

/**
 * The `--help` text of the program (every command listed) or, with
 * `command`, of that one command, generated from the schema: every flag with
 * its environment variable and default, so the help cannot drift from what
 * the loader reads.
 */
export function helpText<O extends OptionSchema>(
  program: Program,
  schema: ConfigSchema<O>,
  commands: readonly CommandSummary[],
  command?: CommandSummary,
): string {
  const rows: Array<[string, string]> = [];
  for (const [name, spec] of Object.entries(schema.options)) {
    const flag = kebabName(name);
    const fallback = spec.defaultText ?? formatDefault(spec.defaultFor(program));
    if (spec.kind === 'secret') {
      rows.push([
        `--${flag}-file FILE`,
        `${spec.description}; env ${envName(name)} (or ${envName(name)}_FILE); default: ${fallback}`,
      ]);
      continue;
    }
    const value = spec.kind === 'boolean' ? '' : ` ${spec.valueName ?? 'VALUE'}`;
    rows.push([`--${flag}${value}`, `${spec.description}; env ${envName(name)}; default: ${fallback}`]);
  }
  for (const [name, alias] of Object.entries(schema.aliases ?? {})) {
    rows.push([`--${name} ${alias.valueName}`, `${alias.description}; env ${envName(camelName(name))}`]);
  }
  rows.push(['--config FILE', 'read settings from FILE (JSON, or YAML; keys are the flag names); env VANE_CONFIG']);
  rows.push(['--help', 'show this text']);
  const width = Math.min(30, Math.max(...rows.map(([left]) => left.length)) + 2);
  const lines = rows.map(([left, right]) =>
    left.length + 2 > width ? `  ${left}\n  ${' '.repeat(width)}${right}` : `  ${left.padEnd(width)}${right}`,
  );
  const commandWidth = Math.max(...commands.map((c) => c.usage.length)) + 2;
  const options =
    'Options (a flag wins over its VANE_* variable, which wins over the config file, which wins over the default):';
  if (command)
    return [`Usage: ${program} ${command.usage}`, '', `  ${command.summary}`, '', options, ...lines].join('\n');
  return [
    `Usage: ${program} [command] [options]`,
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.usage.padEnd(commandWidth)}${c.summary}`),
    '',
    options,
    ...lines,
  ].join('\n');
}

function formatDefault(value: unknown): string {
  if (value === undefined) return 'none';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.join(',');
  return String(value);
}
