/**
 * `@vane/cli`: the `vane` command. Install it as a dev dependency and run
 * it; an app imports nothing from it.
 *
 * - `vane types` writes a declaration file that types every read of a
 *   service's keys (configs with their JSON types, flags, secrets with
 *   their type), so a typo is a compile error. The file registers the keys
 *   with `@vane/client`; it imports nothing from `@vane/cli`.
 * - `vane refs` lists every key the code reads (TypeScript compiler API)
 *   and, against the service, the keys it lacks, the flags nobody reads and
 *   the flags that are stale.
 *
 * The command's parts (`runCli`, `runTypes`, `runRefs`, `readKeys`,
 * `CliError`, …), for scripts that run it in process, are the entry
 * `@vane/cli/api`.
 *
 * @packageDocumentation
 * @module @vane/cli
 */
export {};
