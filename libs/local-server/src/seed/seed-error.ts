/**
 * A seed or state file that cannot be used. The message is
 * `<file>: <JSON path>: <problem>` and never contains a secret value or an
 * API key; match on {@link SeedError.code}.
 */
export class SeedError extends Error {
  /** Stable error code. */
  readonly code = 'invalid_seed';
  /** The file (or other source name) that was read. */
  readonly file: string;
  /** JSON path of the offending value, e.g. `services.shop.keys[1]`; empty when the whole file is at fault. */
  readonly path: string;
  /** What was wrong, without file and path. */
  readonly problem: string;

  constructor(file: string, path: string, problem: string, options?: { cause?: unknown }) {
    super(path === '' ? `${file}: ${problem}` : `${file}: ${path}: ${problem}`, options);
    this.name = 'SeedError';
    this.file = file;
    this.path = path;
    this.problem = problem;
  }
}
