import { VaneServerError, type VaneServerErrorOptions } from '../errors/vane-server-error.js';

/**
 * A seed or state file that cannot be used. The message is
 * `<file>: <JSON path>: <problem>` and never contains a secret value or an
 * API key; match on {@link SeedError.code}.
 */
export class SeedError extends VaneServerError {
  /** Stable error code. */
  readonly code = 'VANE_LOCAL_SEED_INVALID' as const;
  /** The file (or other source name) that was read. */
  readonly file: string;
  /** JSON path of the offending value, e.g. `services.shop.keys[1]`; empty when the whole file is at fault. */
  readonly path: string;
  /** What was wrong, without file and path. */
  readonly problem: string;

  /**
   * @param file - the file (or other source name) read.
   * @param path - JSON path of the offending value; empty for the whole file.
   * @param problem - what was wrong; never a secret value or a key.
   */
  constructor(file: string, path: string, problem: string, options?: VaneServerErrorOptions) {
    super(path === '' ? `${file}: ${problem}` : `${file}: ${path}: ${problem}`, options);
    this.file = file;
    this.path = path;
    this.problem = problem;
  }
}
