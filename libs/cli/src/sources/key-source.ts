/**
 * Which source a command reads a service's keys from, chosen from its
 * options, with credentials from the environment or a file (never argv,
 * where `ps` shows them).
 *
 * @packageDocumentation
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CliError } from '../cli-error.js';
import type { KeyCatalog } from '../catalog/key-catalog.js';
import { readAdminKeys } from './admin-source.js';
import { readSeedKeys } from './seed-source.js';
import { readServiceKeys } from './service-source.js';

/** The options every command that reads keys takes. */
export interface SourceOptions {
  /** A running service: `--base-url`, with `VANE_API_KEY` or `--api-key-file`. */
  readonly baseUrl?: string;
  /** A file holding the API key (its first line). */
  readonly apiKeyFile?: string;
  /** The API key itself: accepted with a warning, since argv is visible to every local user. */
  readonly apiKey?: string;
  /** A seed file (PROTOCOL §11) instead of a service. */
  readonly seed?: string;
  /** The service's slug: which service of a seed, or of the admin API. */
  readonly service?: string;
  /** The server's admin address: the keys (without `--base-url` or `--seed`) and the audit, with `VANE_ADMIN_TOKEN`. */
  readonly adminUrl?: string;
  /** A file holding the admin token (its first line), instead of `VANE_ADMIN_TOKEN`. */
  readonly adminTokenFile?: string;
}

/** What a command reads besides its options. */
export interface SourceContext {
  /** The directory relative file options are read from. */
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Where warnings go (one line each). */
  warn(line: string): void;
}

function firstLine(file: string, option: string, cwd: string): string {
  let text: string;
  try {
    text = readFileSync(resolve(cwd, file), 'utf8');
  } catch (err) {
    throw new CliError(
      'VANE_CLI_BAD_FILE',
      `${option} ${file}: cannot read it (${(err as NodeJS.ErrnoException).code})`,
      {
        cause: err,
      },
    );
  }
  const line = text.split(/\r?\n/, 1)[0]!.trim();
  if (line === '') throw new CliError('VANE_CLI_BAD_FILE', `${option} ${file}: the file is empty`);
  return line;
}

/** The API key, from `--api-key-file`, `VANE_API_KEY` or (warned) `--api-key`. @throws CliError */
export function apiKeyOf(options: SourceOptions, context: SourceContext): string {
  if (options.apiKeyFile !== undefined) return firstLine(options.apiKeyFile, '--api-key-file', context.cwd);
  if (options.apiKey !== undefined) {
    context.warn(
      'warning: --api-key puts the key where every local user can read it (ps, shell history): use VANE_API_KEY or --api-key-file',
    );
    return options.apiKey;
  }
  const fromEnv = context.env['VANE_API_KEY'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  throw new CliError('VANE_CLI_USAGE', '--base-url needs an API key: set VANE_API_KEY or give --api-key-file FILE');
}

/** The admin token, from `--admin-token-file` or `VANE_ADMIN_TOKEN`. @throws CliError */
export function adminTokenOf(options: SourceOptions, context: SourceContext): string {
  if (options.adminTokenFile !== undefined) return firstLine(options.adminTokenFile, '--admin-token-file', context.cwd);
  const fromEnv = context.env['VANE_ADMIN_TOKEN'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  throw new CliError(
    'VANE_CLI_USAGE',
    '--admin-url needs an admin token: set VANE_ADMIN_TOKEN or give --admin-token-file FILE',
  );
}

/**
 * Reads the service's keys from the one source the options name: `--seed`,
 * `--base-url`, or `--admin-url` with `--service`.
 *
 * @throws CliError - `VANE_CLI_USAGE` for no source or two; what the source throws.
 */
export async function readKeys(options: SourceOptions, context: SourceContext): Promise<KeyCatalog> {
  if (options.seed !== undefined && options.baseUrl !== undefined) {
    throw new CliError('VANE_CLI_USAGE', 'give --seed or --base-url, not both');
  }
  if (options.seed !== undefined) return readSeedKeys(options.seed, options.service, context.cwd);
  if (options.baseUrl !== undefined) {
    return readServiceKeys({ baseUrl: options.baseUrl, apiKey: apiKeyOf(options, context) });
  }
  if (options.adminUrl !== undefined) {
    if (options.service === undefined) throw new CliError('VANE_CLI_USAGE', '--admin-url needs --service SLUG');
    return readAdminKeys({
      adminUrl: options.adminUrl,
      adminToken: adminTokenOf(options, context),
      service: options.service,
    });
  }
  throw new CliError(
    'VANE_CLI_USAGE',
    'no source of keys: give --base-url URL (with VANE_API_KEY), --seed FILE, or --admin-url URL --service SLUG (with VANE_ADMIN_TOKEN)',
  );
}
