/**
 * Loads a module by name, as `import()` does; a package passes its own
 * (peers resolve from the package that declares them), and tests swap it
 * to simulate a missing package.
 */
export type ModuleImporter = (name: string) => Promise<unknown>;

/** Node's "module not found" codes: `require()`'s (a CommonJS build) and `import()`'s (an ESM build). */
const NOT_FOUND_CODES: ReadonlySet<unknown> = new Set(['MODULE_NOT_FOUND', 'ERR_MODULE_NOT_FOUND']);

/**
 * Whether `error` says a module is not installed (as opposed to installed
 * but failing to load): how an optional peer's absence is told.
 */
export function isModuleNotFound(error: unknown): boolean {
  return typeof error === 'object' && error !== null && NOT_FOUND_CODES.has((error as { code?: unknown }).code);
}
