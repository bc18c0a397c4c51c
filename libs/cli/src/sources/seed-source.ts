/**
 * Reads a service's keys from a seed file (PROTOCOL §11).
 *
 * @packageDocumentation
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CliError } from '../cli-error.js';
import type { KeyCatalog } from '../catalog/key-catalog.js';
import { catalogOf, type ServiceMembers } from './catalog-reader.js';

/** ` at line L, column C` of a JSON syntax error, when the parser tells its position. */
function syntaxErrorPlace(text: string, err: unknown): string {
  const position = /at position (\d+)/.exec((err as Error).message)?.[1];
  if (position === undefined) return '';
  const before = text.slice(0, Number(position)).split('\n');
  return ` at line ${before.length}, column ${before[before.length - 1]!.length + 1}`;
}

/**
 * Reads `service` of the seed at `file`; without `service`, the seed's only
 * service.
 *
 * @throws CliError `VANE_CLI_BAD_FILE` for a file that cannot be read or parsed, or names no such service.
 */
export function readSeedKeys(file: string, service?: string, cwd: string = process.cwd()): KeyCatalog {
  const path = resolve(cwd, file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new CliError('VANE_CLI_BAD_FILE', `${file}: cannot read it (${(err as NodeJS.ErrnoException).code})`, {
      cause: err,
    });
  }
  let seed: unknown;
  try {
    seed = JSON.parse(text);
  } catch (err) {
    // Not the parser's message: it quotes the text around the error, which may be a secret's value.
    throw new CliError('VANE_CLI_BAD_FILE', `${file}: not valid JSON${syntaxErrorPlace(text, err)}`);
  }
  const services = (seed as { services?: unknown } | null)?.services;
  if (typeof services !== 'object' || services === null || Array.isArray(services)) {
    throw new CliError('VANE_CLI_BAD_FILE', `${file}: not a Vane seed (no "services" object)`);
  }
  const slugs = Object.keys(services);
  const slug = service ?? (slugs.length === 1 ? slugs[0] : undefined);
  if (slug === undefined) {
    throw new CliError(
      'VANE_CLI_USAGE',
      `${file} has ${slugs.length} services (${slugs.join(', ')}): name one with --service`,
    );
  }
  const members = (services as Record<string, unknown>)[slug];
  if (typeof members !== 'object' || members === null) {
    throw new CliError('VANE_CLI_BAD_FILE', `${file}: no service "${slug}" (it has ${slugs.join(', ') || 'none'})`);
  }
  // A seed without secrets has none; only a snapshot leaves them out for a key that may not see them.
  const { configs, flags, secrets = {} } = members as ServiceMembers;
  const catalog = catalogOf(
    { configs, flags, secrets },
    { slug, origin: `the service "${slug}" of ${file}` },
    {
      abKnown: true,
      where: `${file}: services.${slug}`,
      errorCode: 'VANE_CLI_BAD_FILE',
    },
  );
  return { ...catalog, seedFile: path };
}
