/**
 * Turns the `configs`, `flags` and `secrets` members of a snapshot, a seed
 * or the console's service view into a {@link KeyCatalog}: types only, every
 * value dropped here.
 *
 * @packageDocumentation
 */
import { CliError } from '../cli-error.js';
import { jsonTypeOf } from '../catalog/json-type.js';
import type { CatalogFlag, KeyCatalog } from '../catalog/key-catalog.js';

/** The members a source's service object has (each one checked here). */
export interface ServiceMembers {
  readonly configs?: unknown;
  readonly flags?: unknown;
  readonly secrets?: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function bad(where: string, what: string): CliError {
  return new CliError('VANE_CLI_BAD_ANSWER', `${where}: ${what}`);
}

function timestamp(value: unknown, where: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw bad(where, 'is not an RFC 3339 timestamp or null');
  return value;
}

/** Whether an A/B rule (`{percentage, cohorts}`) gives some users another answer than others. */
function splitOf(ab: unknown): boolean {
  if (ab === undefined || ab === null) return false;
  if (!isRecord(ab)) return true;
  const cohorts = Array.isArray(ab['cohorts']) ? ab['cohorts'] : [];
  return cohorts.length > 0 || ab['percentage'] !== 100;
}

/**
 * Reads a service's members into a catalog.
 *
 * @param abKnown - whether the source carries each flag's A/B rule (`ab`); a snapshot does not.
 * @param where - the members' place, for messages (`services.shop` of a seed, `the service's snapshot`).
 * @param errorCode - the code of an error in the members: a file's or an answer's.
 */
export function catalogOf(
  members: ServiceMembers,
  origin: { readonly slug: string; readonly origin: string },
  options: { readonly abKnown: boolean; readonly where: string; readonly errorCode?: 'VANE_CLI_BAD_FILE' },
): KeyCatalog {
  const wrap = (err: unknown): never => {
    if (err instanceof CliError && options.errorCode !== undefined) {
      throw new CliError(options.errorCode, err.message, { cause: err });
    }
    throw err;
  };
  try {
    return read(members, origin, options);
  } catch (err) {
    return wrap(err);
  }
}

function read(
  members: ServiceMembers,
  { slug, origin }: { readonly slug: string; readonly origin: string },
  options: { abKnown: boolean; where: string },
): KeyCatalog {
  const { where } = options;
  const configs = new Map<string, string>();
  if (members.configs !== undefined) {
    if (!isRecord(members.configs)) throw bad(`${where}.configs`, 'is not an object');
    for (const [key, value] of Object.entries(members.configs)) configs.set(key, jsonTypeOf(value));
  }
  const flags = new Map<string, CatalogFlag>();
  if (members.flags !== undefined) {
    if (!isRecord(members.flags)) throw bad(`${where}.flags`, 'is not an object');
    for (const [key, flag] of Object.entries(members.flags)) {
      const at = `${where}.flags[${JSON.stringify(key)}]`;
      if (!isRecord(flag)) throw bad(at, 'is not an object');
      if (typeof flag['is_enabled'] !== 'boolean') throw bad(`${at}.is_enabled`, 'is not a boolean');
      flags.set(key, {
        isEnabled: flag['is_enabled'],
        startsAt: timestamp(flag['starts_at'], `${at}.starts_at`),
        endsAt: timestamp(flag['ends_at'], `${at}.ends_at`),
        split: options.abKnown ? splitOf(flag['ab']) : undefined,
      });
    }
  }
  let secrets: Map<string, 'text' | 'file'> | null = null;
  if (members.secrets !== undefined) {
    if (!isRecord(members.secrets)) throw bad(`${where}.secrets`, 'is not an object');
    secrets = new Map();
    for (const [name, secret] of Object.entries(members.secrets)) {
      const type = isRecord(secret) ? (secret['type'] ?? 'text') : undefined;
      if (type !== 'text' && type !== 'file') {
        throw bad(`${where}.secrets[${JSON.stringify(name)}].type`, 'is neither "text" nor "file"');
      }
      secrets.set(name, type);
    }
  }
  return { origin, slug, configs, flags, secrets };
}
