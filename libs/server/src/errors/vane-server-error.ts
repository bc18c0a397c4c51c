/**
 * The errors of `@vane/server`. Every one extends
 * {@link VaneServerError} and carries a stable `code`: match on `code`, not
 * on the class or the message, which are for people and may be reworded.
 *
 * These codes name conditions inside the server (a bad seed, a damaged
 * journal, a refused admin call). They are not the `error` member of HTTP
 * answers: those are the wire protocol's own codes (`invalid_request`,
 * `not_found`, … in protocol §3), which stay as they are.
 *
 * No message here ever holds a secret value or an API key.
 *
 * @packageDocumentation
 */

/** Every stable error code the local server raises. */
export type VaneServerErrorCode =
  /** A seed or state file that cannot be used ({@link SeedError}). */
  | 'VANE_LOCAL_SEED_INVALID'
  /** Input of the wrong shape: an admin call's body, a seed member ({@link ValidationError}). */
  | 'VANE_LOCAL_INVALID_INPUT'
  /** A service, key, config, flag, secret, version or trust that does not exist ({@link NotFoundError}). */
  | 'VANE_LOCAL_NOT_FOUND'
  /** A journal that cannot be replayed ({@link JournalFileError}). */
  | 'VANE_LOCAL_JOURNAL_INVALID'
  /** The journal could not be written; no write is answered any more ({@link JournalWriteError}). */
  | 'VANE_LOCAL_JOURNAL_WRITE_FAILED'
  /** A journal record names a service the state file does not hold ({@link StateChangeError}). */
  | 'VANE_LOCAL_STATE_MISMATCH'
  /** A request the HTTP layer refused; its answer's status and protocol code are on the error. */
  | 'VANE_LOCAL_REQUEST_REFUSED'
  /** An outbound URL (a trust's `jwks_url` or `sts_endpoint`) the operator's allow-list does not admit ({@link OutboundRefusedError}). */
  | 'VANE_SERVER_OUTBOUND_REFUSED'
  /** A setting of the command line, the environment or the config file that cannot be used ({@link ConfigError}). */
  | 'VANE_CONFIG_INVALID'
  /** A wait of `@vane/server/testing` ran past its limit (`WaitTimeoutError`). */
  | 'VANE_LOCAL_WAIT_TIMEOUT'
  /** An admin API call of `@vane/server/testing` was answered with a status that is not 2xx (`AdminRequestError`). */
  | 'VANE_LOCAL_ADMIN_REQUEST_FAILED'
  /** An admin API answer `@vane/server/testing` received that the OpenAPI document does not describe (`OpenApiMismatchError`). */
  | 'VANE_TEST_OPENAPI_MISMATCH'
  /** `checkAnswers: true` and Ajv 8 or `ajv-formats` cannot be loaded (`AnswerCheckUnavailableError`). */
  | 'VANE_TEST_ANSWER_CHECK_UNAVAILABLE'
  /** The store cannot take a write now; nothing of it was kept ({@link StoreUnavailableError}). */
  | 'VANE_SERVER_STORE_UNAVAILABLE'
  /** A write was sent to the store and no answer came back: committed or not ({@link CommitOutcomeUnknownError}). */
  | 'VANE_SERVER_COMMIT_OUTCOME_UNKNOWN'
  /** The store cannot be opened as configured ({@link StoreOpenError}). */
  | 'VANE_SERVER_STORE_REFUSED'
  /** The store could not be reached at start ({@link StoreUnreachableError}). */
  | 'VANE_SERVER_STORE_UNREACHABLE'
  /** An admin token name already taken ({@link ConflictError}). */
  | 'VANE_LOCAL_CONFLICT'
  /** The admin token lacks the right an operation needs ({@link ForbiddenError}). */
  | 'VANE_LOCAL_FORBIDDEN'
  /** The data is sealed by a root key the server was not given, or no key was given to seal it ({@link RootKeyMissingError}). */
  | 'VANE_ROOT_KEY_MISSING'
  /** A root key given is not 32 bytes of base64, or its file cannot be read ({@link RootKeyError}). */
  | 'VANE_ROOT_KEY_INVALID'
  /** A sealed value or wrapped data key does not open where it is: changed or moved ({@link SealedDataError}). */
  | 'VANE_SEALED_DATA_INVALID';

/** Options shared by every local-server error constructor. */
export interface VaneServerErrorOptions {
  /** The underlying error, if any; never one whose message could hold a secret. */
  cause?: unknown;
}

/**
 * Base class of every error the local server raises, so one
 * `instanceof VaneServerError` covers them all.
 *
 * @example
 * ```ts
 * try { await startVaneServer({ seed: 'vane.seed.json' }); }
 * catch (err) { if (err instanceof VaneServerError && err.code === 'VANE_LOCAL_SEED_INVALID') … }
 * ```
 */
export abstract class VaneServerError extends Error {
  /** Stable, machine-readable code of the condition. */
  abstract readonly code: VaneServerErrorCode;

  protected constructor(message: string, options?: VaneServerErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }
}
