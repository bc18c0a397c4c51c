/**
 * `vane refs`: the Vane keys an app reads, and against a service's keys the
 * ones it lacks, the flags nobody reads and the flags that are stale.
 *
 * @packageDocumentation
 */
import { CliError } from '../cli-error.js';
import { adminTokenOf, readKeys, type SourceContext, type SourceOptions } from '../sources/key-source.js';
import { loadTypeScript } from '../types/load-typescript.js';
import { HttpAuditSource, type AuditSource } from './audit-source.js';
import { findKeyUses } from './find-key-uses.js';
import { projectFiles } from './project-files.js';
import { compareWithCatalog, formatReport, type RefsReport } from './refs-report.js';
import { findStaleFlags, parseDuration } from './stale-flags.js';

/** Options of `vane refs`. */
export interface RefsOptions extends SourceOptions {
  /** The directory to scan; default: the files of `tsconfig.json`, else the current directory. */
  readonly dir?: string;
  /** Print the report as JSON. @default false */
  readonly json?: boolean;
  /** How long a steady flag may stay unchanged before it is stale (`30d`, `12h`). @default '30d' */
  readonly staleAfter?: string;
}

/** What `vane refs` needs besides its options. */
export interface RefsContext extends SourceContext {
  print(line: string): void;
  /** The time, for the stale computation. @default Date.now */
  now?(): number;
  /** The audit to read flags' last changes from; default: the server's, with `--admin-url`. */
  readonly audit?: AuditSource;
}

function hasSource(options: SourceOptions): boolean {
  return options.seed !== undefined || options.baseUrl !== undefined || options.adminUrl !== undefined;
}

/**
 * Runs `vane refs`. Exit status 1 when a key used is not defined on the
 * service, else 0.
 *
 * @throws CliError - a source or an audit that fails, options that do not parse.
 */
export async function runRefs(
  options: RefsOptions,
  context: RefsContext,
): Promise<{ report: RefsReport; exitCode: 0 | 1 }> {
  const staleAfterMs = parseDuration(options.staleAfter ?? '30d');
  if (staleAfterMs === undefined) {
    throw new CliError('VANE_CLI_USAGE', `--stale-after ${options.staleAfter ?? ''}: not a duration (30d, 12h, 90m)`);
  }
  // Read the keys first: a bad source fails before the (slower) scan.
  const catalog = hasSource(options) ? await readKeys(options, context) : undefined;
  const typescript = await loadTypeScript();
  const uses = findKeyUses(typescript, projectFiles(typescript, context.cwd, options.dir));
  const dynamic = uses.filter((use) => use.key === null);
  let report: RefsReport = { uses, dynamic };
  if (catalog !== undefined) {
    report = { ...report, ...compareWithCatalog(uses, catalog) };
    const audit =
      context.audit ??
      (options.adminUrl === undefined
        ? undefined
        : new HttpAuditSource(options.adminUrl, adminTokenOf(options, context)));
    if (audit !== undefined) {
      const usedFlags = uses.filter((use) => use.kind === 'flag' && use.key !== null).map((use) => use.key!);
      const now = context.now?.() ?? Date.now();
      const stale = await findStaleFlags(usedFlags, catalog.flags, audit, catalog.slug, staleAfterMs, now);
      report = {
        ...report,
        staleFlags: stale.map((flag) => ({
          ...flag,
          uses: uses.filter((use) => use.kind === 'flag' && use.key === flag.key),
        })),
      };
    }
  }
  if (options.json === true) context.print(JSON.stringify(report, null, 2));
  else for (const line of formatReport(report)) context.print(line);
  return { report, exitCode: (report.undefinedKeys?.length ?? 0) > 0 ? 1 : 0 };
}
