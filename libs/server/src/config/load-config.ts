import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError } from '../errors/config-error.js';
import { readConfigFile } from './config-file.js';
import {
  camelName,
  envName,
  kebabName,
  OptionProblem,
  type OptionSpec,
  type Program,
  type RawValue,
} from './option-spec.js';

/** The settings of a command, by name. */
export type OptionSchema = Readonly<Record<string, OptionSpec<unknown>>>;

/** Another flag (and environment variable and file key) for a setting, mapped to its value (`--state F` is `--store file:F`). */
export interface OptionAlias<O extends OptionSchema> {
  readonly target: keyof O & string;
  readonly description: string;
  readonly valueName: string;
  map(value: string): string;
}

/** A check across settings; returns the setting at fault and what is wrong, or undefined. */
export type CrossCheck<O extends OptionSchema> = (
  values: ConfigValues<O>,
) => { readonly option: keyof O & string; readonly problem: string } | undefined;

/** A command's settings: the options, their aliases and the checks across them. */
export interface ConfigSchema<O extends OptionSchema> {
  readonly options: O;
  readonly aliases?: Readonly<Record<string, OptionAlias<O>>>;
  readonly checks?: readonly CrossCheck<O>[];
}

/** The values of a schema's settings, typed. */
export type ConfigValues<O extends OptionSchema> = {
  readonly [K in keyof O]: O[K] extends OptionSpec<infer T> ? T : never;
};

/** Where a setting's value came from. */
export interface ConfigSource {
  readonly kind: 'flag' | 'env' | 'file' | 'default';
  /** As the user wrote it: `--port`, `VANE_PORT`, `vane.yaml: port`, `default`. */
  readonly name: string;
}

/** What {@link loadConfig} read. */
export interface LoadedConfig<O extends OptionSchema> {
  readonly values: ConfigValues<O>;
  /** Where each value came from (for `check-config` and for error messages). */
  readonly sources: { readonly [K in keyof O]: ConfigSource };
  /** The config file read, if any. */
  readonly file: string | undefined;
  /** Arguments that are not options (only when `allowPositionals`). */
  readonly positionals: readonly string[];
}

/** Input of {@link loadConfig}. */
export interface LoadConfigInput {
  readonly program: Program;
  /** The arguments after the command's name. */
  readonly argv: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  /** Accept arguments that are not options (a subcommand's own words). @default false */
  readonly allowPositionals?: boolean;
}

/**
 * Reads every setting of `schema` from flags, environment variables
 * (`VANE_*`) and the config file (`--config FILE` or `VANE_CONFIG`), in
 * that order of precedence, then the defaults. Secrets are read from their
 * environment variable or the file `--<name>-file` names, and refused on
 * the command line and in the config file. Throws a {@link ConfigError}
 * naming the first wrong setting.
 */
export function loadConfig<O extends OptionSchema>(schema: ConfigSchema<O>, input: LoadConfigInput): LoadedConfig<O> {
  const { options, aliases = {} } = schema;
  const flags = parseFlags(schema, input);
  const env = (name: string): string | undefined => (input.env[name] === '' ? undefined : input.env[name]);
  const file = (flags.values['config'] as string | undefined) ?? env('VANE_CONFIG');
  const document = file === undefined ? {} : readConfigFile(file);
  checkFileKeys(schema, document, file ?? '');

  const values: Record<string, unknown> = {};
  const sources: Record<string, ConfigSource> = {};
  for (const [name, spec] of Object.entries(options)) {
    const flag = kebabName(name);
    const candidates: Array<{ source: ConfigSource; raw: RawValue; map?: (v: string) => string }> = [];
    const add = (source: ConfigSource, raw: RawValue, map?: (v: string) => string): void => {
      if (raw !== undefined) candidates.push({ source, raw, map });
    };
    const aliasesOf = Object.entries(aliases).filter(([, alias]) => alias.target === name);
    if (spec.kind === 'secret') {
      // The secret itself only from the environment; its file from any source.
      add({ kind: 'flag', name: `--${flag}-file` }, flags.values[`${flag}-file`]);
      add({ kind: 'env', name: envName(name) }, env(envName(name)));
      add({ kind: 'env', name: `${envName(name)}_FILE` }, env(`${envName(name)}_FILE`));
      add({ kind: 'file', name: `${file}: ${flag}-file` }, document[`${flag}-file`]);
    } else {
      add({ kind: 'flag', name: `--${flag}` }, flags.values[flag]);
      for (const [aliasName, alias] of aliasesOf)
        add({ kind: 'flag', name: `--${aliasName}` }, flags.values[aliasName], alias.map);
      add({ kind: 'env', name: envName(name) }, env(envName(name)));
      for (const [aliasName, alias] of aliasesOf)
        add({ kind: 'env', name: envName(camelName(aliasName)) }, env(envName(camelName(aliasName))), alias.map);
      add({ kind: 'file', name: `${file}: ${flag}` }, document[flag]);
      for (const [aliasName, alias] of aliasesOf)
        add({ kind: 'file', name: `${file}: ${aliasName}` }, document[aliasName], alias.map);
    }
    // Two flags for one setting (`--store` and `--state`) would leave one silently ignored.
    const fromFlags = candidates.filter((c) => c.source.kind === 'flag');
    if (fromFlags.length > 1) {
      throw new ConfigError(fromFlags[1]!.source.name, `conflicts with ${fromFlags[0]!.source.name}: give one`);
    }
    const chosen = candidates[0];
    if (!chosen) {
      values[name] = spec.defaultFor(input.program);
      sources[name] = { kind: 'default', name: 'default' };
      continue;
    }
    let raw = chosen.raw;
    if (spec.kind === 'secret' && chosen.source.name !== envName(name)) raw = readSecretFile(chosen.source.name, raw);
    if (chosen.map) {
      if (typeof raw !== 'string' || raw === '') throw new ConfigError(chosen.source.name, 'expected a non-empty text');
      raw = chosen.map(raw);
    }
    try {
      values[name] = spec.parse(raw);
    } catch (error) {
      if (error instanceof OptionProblem) throw new ConfigError(chosen.source.name, error.message);
      throw error;
    }
    sources[name] = chosen.source;
  }
  const typed = values as ConfigValues<O>;
  for (const check of schema.checks ?? []) {
    const failure = check(typed);
    if (failure) throw new ConfigError(settingName(sources[failure.option]!, failure.option), failure.problem);
  }
  return {
    values: typed,
    sources: sources as { readonly [K in keyof O]: ConfigSource },
    file,
    positionals: flags.positionals,
  };
}

/** The flags of `argv`; refuses unknown ones, and secrets, without echoing any value. */
function parseFlags<O extends OptionSchema>(
  schema: ConfigSchema<O>,
  input: LoadConfigInput,
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  const parseOptions: Record<string, { type: 'string' | 'boolean' }> = { config: { type: 'string' } };
  for (const [name, spec] of Object.entries(schema.options)) {
    if (spec.kind === 'secret') {
      const flag = kebabName(name);
      // Named here so the error can say where the secret goes instead.
      const given = input.argv.find((arg) => arg === `--${flag}` || arg.startsWith(`--${flag}=`));
      if (given) {
        throw new ConfigError(
          `--${flag}`,
          `secrets are not taken from the command line (any user can read it): set ${envName(name)} or --${flag}-file FILE`,
        );
      }
      parseOptions[`${flag}-file`] = { type: 'string' };
    } else {
      parseOptions[kebabName(name)] = { type: spec.kind === 'boolean' ? 'boolean' : 'string' };
    }
  }
  for (const alias of Object.keys(schema.aliases ?? {})) parseOptions[alias] = { type: 'string' };
  try {
    const { values, positionals } = parseArgs({
      args: [...input.argv],
      options: parseOptions,
      strict: true,
      allowPositionals: input.allowPositionals ?? false,
    });
    return { values: values as Record<string, string | boolean | undefined>, positionals };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    // Never echo a stray argument: it is often a secret whose option name was mistyped (`--token= t0ken`).
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
      throw new ConfigError(
        'argument',
        'unexpected argument: every argument is an option (--name value or --name=value)',
      );
    }
    const option = /'(-[^']*)'/.exec((error as Error).message)?.[1] ?? 'option';
    const flagName = option.replace(/=.*$/, '');
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new ConfigError(flagName, 'unknown option (see --help)');
    throw new ConfigError(flagName, (error as Error).message.replace(/'[^']*'/g, `'${flagName}'`));
  }
}

/** Refuses keys of the config file that name no setting, and secrets written in it. */
function checkFileKeys<O extends OptionSchema>(
  schema: ConfigSchema<O>,
  document: Record<string, unknown>,
  file: string,
) {
  const known = new Set<string>(Object.keys(schema.aliases ?? {}));
  for (const [name, spec] of Object.entries(schema.options)) {
    const flag = kebabName(name);
    if (spec.kind === 'secret') {
      if (flag in document) {
        throw new ConfigError(
          `${file}: ${flag}`,
          `secrets are not taken from the config file: set ${envName(name)} or ${flag}-file`,
        );
      }
      known.add(`${flag}-file`);
    } else known.add(flag);
  }
  for (const key of Object.keys(document)) {
    if (!known.has(key)) throw new ConfigError(`${file}: ${key}`, 'unknown setting (see --help)');
  }
}

/** Reads the file a secret's `-file` setting names; its content is the secret, less a trailing newline. */
function readSecretFile(setting: string, path: RawValue): string {
  if (typeof path !== 'string' || path === '') throw new ConfigError(setting, 'expected the path of a file');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(setting, `cannot read ${path} (${code})`, { cause: error });
  }
  const secret = text.replace(/\r?\n$/, '');
  if (secret === '') throw new ConfigError(setting, `${path} is empty`);
  return secret;
}

/** How a setting is named in an error about a check across settings: its source, or its flag for a default. */
function settingName(source: ConfigSource, option: string): string {
  return source.kind === 'default' ? `--${kebabName(option)}` : source.name;
}
