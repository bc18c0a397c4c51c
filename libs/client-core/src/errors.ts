/**
 * The errors' common base and the codes every Vane client raises: one home,
 * so `@vane/client` and `@vane/browser` raise the same `code` for the same
 * condition, and one `instanceof VaneError` covers both.
 *
 * @packageDocumentation
 */

/** Every stable error code `@vane/client` and `@vane/browser` can raise. */
export type VaneErrorCode =
  | 'VANE_UNAUTHORIZED'
  | 'VANE_BILLING_OVERDUE'
  | 'VANE_NOT_FOUND'
  | 'VANE_RATE_LIMITED'
  | 'VANE_COMMIT_OUTCOME_UNKNOWN'
  | 'VANE_QUARANTINED'
  | 'VANE_ADDON_NOT_AVAILABLE'
  | 'VANE_PUBLIC_KEY_SECRET_ACCESS'
  | 'VANE_FRONTEND_SECRET_READ'
  | 'VANE_SECRET_NOT_FOUND'
  | 'VANE_WORKLOAD_IDENTITY_NOT_CONFIGURED'
  | 'VANE_TOKEN_EXCHANGE_FAILED'
  | 'VANE_SESSION_EXPIRED'
  | 'VANE_TRANSPORT'
  | 'VANE_INVALID_ARGUMENT'
  | 'VANE_UNEXPECTED_RESPONSE'
  | 'VANE_NOT_A_VANE_SERVICE'
  | 'VANE_CLIENT_CLOSED'
  | 'VANE_SECRET_FILE_WRITE'
  | 'VANE_CONFIG_INVALID'
  | 'VANE_SECRETS_NOT_AVAILABLE'
  | 'VANE_LIVE_RESOURCE_BUILD_FAILED'
  | 'VANE_LIVE_RESOURCE_CLOSED'
  | 'VANE_SECRET_KEY_IN_BROWSER';

/** Options shared by every Vane error constructor. */
export interface VaneErrorOptions {
  /** The underlying error, already sanitised (never a raw network error). */
  cause?: unknown;
}

/**
 * Base class of every error Vane raises: the client's, and those of
 * `@vane/nestjs` and `@vane/express` (whose codes start `VANE_NEST_` and
 * `VANE_AB_`). One `instanceof VaneError` check covers them all.
 *
 * @typeParam Code - the codes of one package's errors (`string` for "any Vane error").
 *
 * @example
 * ```ts
 * try { await VaneClient.create(options); }
 * catch (err) { if (err instanceof VaneError && err.code === 'VANE_UNAUTHORIZED') … }
 * ```
 */
export abstract class VaneError<Code extends string = string> extends Error {
  /** Stable, machine-readable code of the condition. */
  abstract readonly code: Code;

  protected constructor(message: string, options?: VaneErrorOptions) {
    // No `cause` member at all when there is none (Error defines one for any options holding the name).
    super(message, options?.cause === undefined ? undefined : options);
    // The class's name; a class a browser bundles writes its own out, since a minifier renames classes.
    this.name = new.target.name;
  }
}

/** An argument or an option was invalid; nothing was sent. */
export class InvalidArgumentError extends VaneError<VaneErrorCode> {
  override readonly name = 'InvalidArgumentError';
  readonly code = 'VANE_INVALID_ARGUMENT' as const;
  /** @param message - which argument, and what was wrong with it (never its secret content). */
  constructor(message: string) {
    super(message);
  }
}

/** A secret was read or written with a public key (`svp_…`); refused before any network call. */
export class PublicKeySecretAccessError extends VaneError<VaneErrorCode> {
  override readonly name = 'PublicKeySecretAccessError';
  readonly code = 'VANE_PUBLIC_KEY_SECRET_ACCESS' as const;
  /** @param message - what happened and what to fix. */
  constructor(message = 'a public key (svp_) has no access to secrets') {
    super(message);
  }
}

/** A secret was read from a service whose kind is `frontend`; refused whatever the key. */
export class FrontendSecretReadError extends VaneError<VaneErrorCode> {
  override readonly name = 'FrontendSecretReadError';
  readonly code = 'VANE_FRONTEND_SECRET_READ' as const;
  /** @param message - what happened and what to fix. */
  constructor(message = 'the service kind is "frontend": it never holds secrets, whatever the key') {
    super(message);
  }
}

/** A foreground operation was called on a closed client. */
export class ClientClosedError extends VaneError<VaneErrorCode> {
  override readonly name = 'ClientClosedError';
  readonly code = 'VANE_CLIENT_CLOSED' as const;
  /** @param message - what was attempted. */
  constructor(message = 'client closed') {
    super(message);
  }
}

/** An `svs_` key was given to `@vane/browser`: a secret key must never be shipped to a browser. */
export class SecretKeyInBrowserError extends VaneError<VaneErrorCode> {
  override readonly name = 'SecretKeyInBrowserError';
  readonly code = 'VANE_SECRET_KEY_IN_BROWSER' as const;
  /** @param message - what happened and what to fix. */
  constructor(message = 'a secret key (svs_) in a browser: use a public key (svp_)') {
    super(message);
  }
}
