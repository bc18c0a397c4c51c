/**
 * `@vane/cli`: the `vane` command, and its parts for scripts.
 *
 * - `vane types` writes a declaration file that types every read of a
 *   service's keys (configs with their JSON types, flags, secrets with
 *   their type), so a typo is a compile error.
 * - `vane refs` lists every key the code reads (TypeScript compiler API)
 *   and, against the service, the keys it lacks, the flags nobody reads and
 *   the flags that are stale.
 *
 * @packageDocumentation
 */
export { runCli, type CliIo } from './program.js';
export { CliError, type CliErrorCode, type CliErrorOptions } from './cli-error.js';
export type { KeyCatalog, CatalogFlag } from './catalog/key-catalog.js';
export { readKeys, type SourceOptions, type SourceContext } from './sources/key-source.js';
export { runTypes, DEFAULT_TYPES_FILE, type TypesOptions, type TypesResult } from './types/types-command.js';
export { renderDeclaration } from './types/render-declaration.js';
export type { KeyChange } from './types/key-diff.js';
export { runRefs, type RefsOptions, type RefsContext } from './refs/refs-command.js';
export type { KeyUse, KeyKind } from './refs/key-use.js';
export type { RefsReport, UndefinedKey } from './refs/refs-report.js';
export { HttpAuditSource, type AuditSource, type AuditChange } from './refs/audit-source.js';
export type { StaleFlag } from './refs/stale-flags.js';
