import { VaneServerError, type VaneServerErrorOptions } from './vane-server-error.js';

/**
 * The store cannot take a write now (PostgreSQL is unreachable, or a commit
 * failed): nothing of the write was kept. The HTTP answer is `503` with
 * `Retry-After`.
 */
export class StoreUnavailableError extends VaneServerError {
  /** Stable error code. */
  readonly code = 'VANE_SERVER_STORE_UNAVAILABLE' as const;

  /** @param message - what could not be done; the driver's error is the cause. */
  constructor(message: string, options?: VaneServerErrorOptions) {
    super(message, options);
  }
}

/**
 * A write was sent to the store and no answer came back (the connection
 * died, or the store did not answer in time, after the commit was sent): it
 * may have been committed or not. The HTTP answer is `504` with
 * `commit_outcome_unknown`; a client settles it by reading the revision or
 * the audit, where the write shows like any other if it landed.
 */
export class CommitOutcomeUnknownError extends VaneServerError {
  /** Stable error code. */
  readonly code = 'VANE_SERVER_COMMIT_OUTCOME_UNKNOWN' as const;

  /** @param message - what was sent and why no answer came; the driver's error is the cause. */
  constructor(message: string, options?: VaneServerErrorOptions) {
    super(message, options);
  }
}

/**
 * The store could not be reached at start (PostgreSQL down, or not where
 * `--store` says): nothing was started, and the same start may succeed
 * once the database answers. `vane-server` exits 4 on it.
 */
export class StoreUnreachableError extends VaneServerError {
  /** Stable error code. */
  readonly code = 'VANE_SERVER_STORE_UNREACHABLE' as const;

  /** @param message - names the store (its password redacted) and the driver's reason. */
  constructor(message: string, options?: VaneServerErrorOptions) {
    super(message, options);
  }
}

/**
 * The store cannot be opened as configured: an unknown `--store`, a missing
 * driver, a schema newer than this server, a file store another process owns.
 */
export class StoreOpenError extends VaneServerError {
  /** Stable error code. */
  readonly code = 'VANE_SERVER_STORE_REFUSED' as const;

  /** @param message - names the store and what is wrong with it. */
  constructor(message: string, options?: VaneServerErrorOptions) {
    super(message, options);
  }
}
