/**
 * `@vane/cli/api`: the parts of the `vane` command, for scripts and tools
 * that run it in process or reuse its pieces. An app author needs none of
 * this: the `vane` bin is the package's interface.
 *
 * - {@link runCli} runs the command line on an argv, with the I/O you give.
 * - {@link runTypes} and {@link renderDeclaration}: `vane types`, and the
 *   declaration it writes from a {@link KeyCatalog}.
 * - {@link runRefs}: `vane refs`, with the keys from {@link readKeys} and
 *   the audit from an {@link AuditSource}.
 * - {@link CliError}: every failure, with a stable `code`.
 *
 * @packageDocumentation
 * @module @vane/cli/api
 */
export { runCli, type CliIo } from '../program.js';
export { CliError, type CliErrorCode, type CliErrorOptions } from '../cli-error.js';
export type { KeyCatalog, CatalogFlag } from '../catalog/key-catalog.js';
export { readKeys, type SourceOptions, type SourceContext } from '../sources/key-source.js';
export { runTypes, DEFAULT_TYPES_FILE, type TypesOptions, type TypesResult } from '../types/types-command.js';
export { renderDeclaration } from '../types/render-declaration.js';
export type { KeyChange } from '../types/key-diff.js';
export { runRefs, type RefsOptions, type RefsContext } from '../refs/refs-command.js';
export type { KeyUse, KeyKind } from '../refs/key-use.js';
export type { RefsReport, UndefinedKey } from '../refs/refs-report.js';
export { HttpAuditSource, type AuditSource, type AuditChange } from '../refs/audit-source.js';
export type { StaleFlag } from '../refs/stale-flags.js';
