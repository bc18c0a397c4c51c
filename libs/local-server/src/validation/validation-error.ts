/**
 * A value that does not have the shape it must have. Answered as
 * `400 invalid_request`; match on {@link ValidationError.code}.
 */
export class ValidationError extends Error {
  /** Stable error code, the `error` member of a 400 answer. */
  readonly code = 'invalid_request';
  /** Where the value was wrong, e.g. `flags.ab.cohorts[0].percentage`; empty for the whole value. */
  readonly path: string;
  /** What was wrong, without the path, e.g. `must be a number, got a string`. */
  readonly problem: string;

  /**
   * @param path - JSON path of the offending value (see `formatJsonPath`).
   * @param problem - what was wrong; never a secret value or a key.
   */
  constructor(path: string, problem: string, options?: { cause?: unknown }) {
    super(path === '' ? problem : `${path}: ${problem}`, options);
    this.name = 'ValidationError';
    this.path = path;
    this.problem = problem;
  }
}

/** Throws a {@link ValidationError} for `path`. */
export function fail(path: string, problem: string): never {
  throw new ValidationError(path, problem);
}
