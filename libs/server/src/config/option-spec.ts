/**
 * One setting of the command line, described once: how it is parsed from a
 * flag, an environment variable or a config file, its default, and its help.
 *
 * @packageDocumentation
 */

/** The two commands of `@vane/server`: the same server, with different defaults. */
export type Program = 'vane-server' | 'vane-local-server';

/** A value as a source gives it: text from a flag or the environment, any JSON/YAML value from a config file. */
export type RawValue = unknown;

/** The kinds of setting; `secret` is read only from the environment or from the file named by `<name>-file`. */
export type OptionKind = 'string' | 'integer' | 'boolean' | 'list' | 'secret';

/**
 * A setting. Its flag is `--<kebab-name>`, its environment variable
 * `VANE_<UPPER_SNAKE_NAME>`, its config file key `<kebab-name>`.
 */
export interface OptionSpec<T> {
  readonly kind: OptionKind;
  /** One line of help. */
  readonly description: string;
  /** The placeholder of its value in the help (`FILE`, `N`). */
  readonly valueName?: string;
  /** Its value when no source gives one, per command. */
  defaultFor(program: Program): T;
  /** How the default reads in the help, when it is not just the value. */
  readonly defaultText?: string;
  /**
   * Parses a value from a source. Returns the value, or throws a
   * {@link OptionProblem} saying what is wrong (never quoting a secret).
   */
  parse(raw: RawValue): T;
}

/** What is wrong with one value; the loader adds where it came from. */
export class OptionProblem extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OptionProblem';
  }
}

/** A default that is the same for every command, or one per command. */
type DefaultValue<T> = T | Readonly<Record<Program, T>>;

function defaultFor<T>(value: DefaultValue<T>): (program: Program) => T {
  return (program) =>
    typeof value === 'object' && value !== null && !Array.isArray(value) && program in value
      ? (value as Readonly<Record<Program, T>>)[program]
      : (value as T);
}

/** Common members of the option builders. */
interface BuilderInput<T> {
  description: string;
  valueName?: string;
  default: DefaultValue<T>;
  defaultText?: string;
}

/** A text setting; `check` may refuse a value by returning what is wrong. */
export function stringOption<D extends string | undefined>(
  input: BuilderInput<D> & { check?: (value: string) => string | undefined },
): OptionSpec<D | string> {
  return {
    kind: 'string',
    description: input.description,
    valueName: input.valueName ?? 'TEXT',
    defaultFor: defaultFor(input.default),
    defaultText: input.defaultText,
    parse(raw) {
      if (typeof raw !== 'string' || raw === '') throw new OptionProblem('expected a non-empty text');
      const problem = input.check?.(raw);
      if (problem) throw new OptionProblem(problem);
      return raw;
    },
  };
}

/** A whole number from `min` to `max`. */
export function integerOption(input: BuilderInput<number> & { min: number; max: number }): OptionSpec<number> {
  return {
    kind: 'integer',
    description: input.description,
    valueName: input.valueName ?? 'N',
    defaultFor: defaultFor(input.default),
    defaultText: input.defaultText,
    parse(raw) {
      const value = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
      if (!Number.isSafeInteger(value) || value < input.min || value > input.max) {
        throw new OptionProblem(`expected an integer from ${input.min} to ${input.max}, received ${describe(raw)}`);
      }
      return value;
    },
  };
}

/** On or off: `--name` alone, `true`/`false`/`1`/`0` from the environment or a file. */
export function booleanOption(input: BuilderInput<boolean>): OptionSpec<boolean> {
  return {
    kind: 'boolean',
    description: input.description,
    defaultFor: defaultFor(input.default),
    defaultText: input.defaultText,
    parse(raw) {
      if (typeof raw === 'boolean') return raw;
      if (raw === 'true' || raw === '1') return true;
      if (raw === 'false' || raw === '0') return false;
      throw new OptionProblem(`expected true or false, received ${describe(raw)}`);
    },
  };
}

/** A list: comma-separated text from a flag or the environment, an array of texts in a file. */
export function listOption(
  input: BuilderInput<readonly string[]> & { check?: (item: string) => string | undefined },
): OptionSpec<readonly string[]> {
  return {
    kind: 'list',
    description: input.description,
    valueName: input.valueName ?? 'A,B',
    defaultFor: defaultFor(input.default),
    defaultText: input.defaultText,
    parse(raw) {
      const items =
        typeof raw === 'string'
          ? raw.split(',').map((item) => item.trim())
          : Array.isArray(raw) && raw.every((item) => typeof item === 'string')
            ? raw.map((item: string) => item.trim())
            : undefined;
      if (!items || items.some((item) => item === '')) {
        throw new OptionProblem('expected a comma-separated list (or an array of texts in a file), with no empty item');
      }
      for (const item of items) {
        const problem = input.check?.(item);
        if (problem) throw new OptionProblem(`"${item}": ${problem}`);
      }
      return items;
    },
  };
}

/**
 * A secret (a token, a key): never from the command line or the config file,
 * where it would be seen in `ps` or checked in. It comes from
 * `VANE_<NAME>` or from the file named by `--<name>-file`.
 */
export function secretOption(input: { description: string; defaultText?: string }): OptionSpec<string | undefined> {
  return {
    kind: 'secret',
    description: input.description,
    valueName: 'FILE',
    defaultFor: () => undefined,
    defaultText: input.defaultText,
    parse(raw) {
      if (typeof raw !== 'string' || raw === '') throw new OptionProblem('expected a non-empty secret');
      return raw;
    },
  };
}

/** A value as an error may show it: short, and only what a source gave as plain text or a number. */
function describe(raw: RawValue): string {
  if (typeof raw === 'string') return `"${raw.length > 40 ? `${raw.slice(0, 40)}…` : raw}"`;
  if (typeof raw === 'number' || typeof raw === 'boolean') return String(raw);
  return Array.isArray(raw) ? 'a list' : raw === null ? 'null' : 'an object';
}

/** `trustProxy` → `trust-proxy`: the flag and the config file key. */
export function kebabName(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

/** `trust-proxy` → `trustProxy`. */
export function camelName(kebab: string): string {
  return kebab.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/** `trustProxy` → `VANE_TRUST_PROXY`. */
export function envName(name: string): string {
  return `VANE_${kebabName(name).replace(/-/g, '_').toUpperCase()}`;
}
