import { VaneServerError, type VaneServerErrorOptions } from '../errors/vane-server-error.js';

/**
 * A value that does not have the shape it must have. Over HTTP it is
 * answered `400 invalid_request`; match on {@link ValidationError.code}.
 */
export class ValidationError extends VaneServerError {
  /** Stable error code. */
  readonly code = 'VANE_LOCAL_INVALID_INPUT' as const;
  /** Where the value was wrong, e.g. `flags.ab.cohorts[0].percentage`; empty for the whole value. */
  readonly path: string;
  /** What was wrong, without the path, e.g. `must be a number, got a string`. */
  readonly problem: string;

  /**
   * @param path - JSON path of the offending value (see `formatJsonPath`).
   * @param problem - what was wrong; never a secret value or a key.
   */
  constructor(path: string, problem: string, options?: VaneServerErrorOptions) {
    super(path === '' ? problem : `${path}: ${problem}`, options);
    this.path = path;
    this.problem = problem;
  }
}

/** Throws a {@link ValidationError} for `path`. */
export function fail(path: string, problem: string): never {
  throw new ValidationError(path, problem);
}
