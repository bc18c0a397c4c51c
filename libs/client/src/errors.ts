/**
 * Typed errors of the Vane client. Every error extends {@link VaneError} and
 * carries a stable string `code`: match on `code`, not on the class or the
 * message, which are for people and may be reworded.
 *
 * No error built here ever carries an API key in clear (keys are redacted as
 * `svs_…abcd`) or a secret value, in its message or anywhere on its `cause`
 * chain: causes coming from the network stack are replaced by sanitised
 * copies (see {@link TransportError}).
 *
 * @packageDocumentation
 * @module @vane/client/errors
 */
import { VaneError, type VaneErrorCode, type VaneErrorOptions } from '@vane/client-core';
import type { InvalidConfig } from './schema/invalid-config.js';

// The base, the codes and the errors `@vane/browser` raises too live in `@vane/client-core` (one home).
export {
  ClientClosedError,
  FrontendSecretReadError,
  InvalidArgumentError,
  PublicKeySecretAccessError,
  VaneError,
  type VaneErrorCode,
  type VaneErrorOptions,
} from '@vane/client-core';

/** Options of errors that come from an HTTP answer. */
export interface HttpErrorOptions extends VaneErrorOptions {
  /** The `error` member of the answer's body, when there was one. */
  serverCode?: string;
}

/** Options of the errors whose HTTP status is optional ({@link UnexpectedResponseError}, {@link TokenExchangeFailedError}). */
export interface StatusErrorOptions extends HttpErrorOptions {
  /** The HTTP status of the answer, when there was one. */
  status?: number;
}

/** The status of a constructor that takes it as a number or named in its options. */
function statusOf(status: number | StatusErrorOptions | undefined): number | undefined {
  return typeof status === 'number' ? status : status?.status;
}

/** The options of such a constructor: the named ones, else the third argument. */
function optionsOf<O extends VaneErrorOptions>(
  status: number | StatusErrorOptions | undefined,
  options?: O,
): StatusErrorOptions | O | undefined {
  return typeof status === 'object' ? status : options;
}

/** Base of the errors that correspond to an HTTP status answered by the service. */
export abstract class VaneHttpError extends VaneError<VaneErrorCode> {
  /** The HTTP status the service answered. */
  readonly status: number;
  /** The `error` member of the service's error body (e.g. `"unauthorized"`), if any. */
  readonly serverCode: string | undefined;

  protected constructor(message: string, status: number, options?: HttpErrorOptions) {
    super(message, options);
    this.status = status;
    this.serverCode = options?.serverCode;
  }
}

/** 401: invalid, revoked or mismatched key (or an invalid session token). */
export class UnauthorizedError extends VaneHttpError {
  readonly code = 'VANE_UNAUTHORIZED' as const;
  /** @param message - what happened and what to fix; must not contain a key in clear. */
  constructor(message: string, options?: HttpErrorOptions) {
    super(message, 401, options);
  }
}

/** 402: the tenant has invoices overdue by more than 14 days. */
export class BillingOverdueError extends VaneHttpError {
  readonly code = 'VANE_BILLING_OVERDUE' as const;
  /** @param message - what happened and what to fix. */
  constructor(message: string, options?: HttpErrorOptions) {
    super(message, 402, options);
  }
}

/**
 * 404 from the Vane service itself: unknown service slug, unknown route, or
 * unknown secret / secret version. A 404 from something else at `baseUrl` is a
 * {@link NotAVaneServiceError}.
 */
export class VaneNotFoundError extends VaneHttpError {
  readonly code = 'VANE_NOT_FOUND' as const;
  /** @param message - what happened and what to fix. */
  constructor(message: string, options?: HttpErrorOptions) {
    super(message, 404, options);
  }
}

/** Options of {@link RateLimitedError}. */
export interface RateLimitedErrorOptions extends HttpErrorOptions {
  /** Delay asked by the `Retry-After` header, in milliseconds, if any. */
  retryAfterMs?: number;
}

/** 429 `rate_limited`: too many requests; retry after {@link RateLimitedError.retryAfterMs}. */
export class RateLimitedError extends VaneHttpError {
  readonly code = 'VANE_RATE_LIMITED' as const;
  /** Delay asked by the `Retry-After` header, in milliseconds (`undefined` when absent). */
  readonly retryAfterMs: number | undefined;
  /** @param message - what happened and what to fix. */
  constructor(message: string, options?: RateLimitedErrorOptions) {
    super(message, 429, options);
    this.retryAfterMs = options?.retryAfterMs;
  }
}

/**
 * 504 `commit_outcome_unknown` on a secret write: the service sent the
 * change to its store and no answer came back, so it may or may not have
 * been applied. Settle it by reading: if it landed, the secret's new version
 * is in the next sync (and the service's audit and revision show it like any
 * other change); retry only once you know it did not. A `503
 * store_unavailable` ({@link UnexpectedResponseError} with status 503), by
 * contrast, means nothing was applied, ever: retry freely.
 */
export class CommitOutcomeUnknownError extends VaneHttpError {
  readonly code = 'VANE_COMMIT_OUTCOME_UNKNOWN' as const;
  /** @param message - what was written, and what to do. */
  constructor(message: string, options?: HttpErrorOptions) {
    super(message, 504, options);
  }
}

/** Options of {@link QuarantinedError}. */
export interface QuarantinedErrorOptions extends RateLimitedErrorOptions {
  /** End of the quarantine, when the service said (`until` member). */
  until?: Date;
}

/** 429 `quarantined`: the caller is quarantined, reported apart from a plain rate limit. */
export class QuarantinedError extends VaneHttpError {
  readonly code = 'VANE_QUARANTINED' as const;
  /** End of the quarantine, when the service gave it. */
  readonly until: Date | undefined;
  /** Delay asked by the `Retry-After` header, in milliseconds (`undefined` when absent). */
  readonly retryAfterMs: number | undefined;
  /** @param message - what happened and what to fix. */
  constructor(message: string, options?: QuarantinedErrorOptions) {
    super(message, 429, options);
    this.until = options?.until;
    this.retryAfterMs = options?.retryAfterMs;
  }
}

/** 403 on A/B evaluation: the A/B testing add-on is not active for the tenant. */
export class AddonNotAvailableError extends VaneHttpError {
  readonly code = 'VANE_ADDON_NOT_AVAILABLE' as const;
  /** @param message - what happened and what to fix. */
  constructor(message: string, options?: HttpErrorOptions) {
    super(message, 403, options);
  }
}

/** Any other answer the client cannot use: an unexpected status (400, 5xx…) or a malformed body. */
export class UnexpectedResponseError extends VaneError<VaneErrorCode> {
  readonly code = 'VANE_UNEXPECTED_RESPONSE' as const;
  /** The HTTP status, when the problem is the status or the body of an answer. */
  readonly status: number | undefined;
  /**
   * @param message - what happened; never contains the body (it could hold secrets).
   * @param status - the HTTP status, if any, or the options with `status` named (preferred).
   * @param options - when `status` is given as a number.
   */
  constructor(message: string, status?: number | StatusErrorOptions, options?: HttpErrorOptions) {
    super(message, optionsOf(status, options));
    this.status = statusOf(status);
  }
}

/**
 * Something answered at `baseUrl`, but not a Vane service: the answer lacks
 * the `Vane-Protocol` header every answer of the service carries, errors
 * included. Usually a wrong port or host in `baseUrl`, another app, or a
 * proxy's own error page. A 404 without the header is this error, never a
 * {@link VaneNotFoundError}: it says nothing about the slug.
 */
export class NotAVaneServiceError extends VaneError<VaneErrorCode> {
  readonly code = 'VANE_NOT_A_VANE_SERVICE' as const;
  /** The HTTP status of the foreign answer. */
  readonly status: number;
  /**
   * @param message - what answered, and what to check.
   * @param status - the HTTP status of the foreign answer.
   */
  constructor(message: string, status: number, options?: VaneErrorOptions) {
    super(message, options);
    this.status = status;
  }
}

/** A strict secret read (`requireSecret`, `requireSecretFile`) found no secret of that name and type. */
export class SecretNotFoundError extends VaneError<VaneErrorCode> {
  readonly code = 'VANE_SECRET_NOT_FOUND' as const;
  /** Name of the secret (a name, never a value). */
  readonly key: string;
  /** @param key - name of the missing secret. */
  constructor(key: string, message = `secret "${key}" not found`) {
    super(message);
    this.key = key;
  }
}

/** Workload identity is enabled but no provider matches the runtime environment. */
export class WorkloadIdentityNotConfiguredError extends VaneError<VaneErrorCode> {
  readonly code = 'VANE_WORKLOAD_IDENTITY_NOT_CONFIGURED' as const;
  /** @param message - what was looked for. */
  constructor(message: string, options?: VaneErrorOptions) {
    super(message, options);
  }
}

/** The token exchange (`/v1/auth/token-exchange`) answered a non-2xx status or failed. */
export class TokenExchangeFailedError extends VaneError<VaneErrorCode> {
  readonly code = 'VANE_TOKEN_EXCHANGE_FAILED' as const;
  /** The HTTP status of the exchange, when there was an answer. */
  readonly status: number | undefined;
  /**
   * @param message - what happened.
   * @param status - the HTTP status, if any, or the options with `status` named (preferred).
   * @param options - when `status` is given as a number.
   */
  constructor(message: string, status?: number | StatusErrorOptions, options?: VaneErrorOptions) {
    super(message, optionsOf(status, options));
    this.status = statusOf(status);
  }
}

/** The workload-identity session expired and could not be refreshed. */
export class SessionExpiredError extends VaneError<VaneErrorCode> {
  readonly code = 'VANE_SESSION_EXPIRED' as const;
  /** @param message - what happened. */
  constructor(
    message = 'the workload-identity session expired and could not be refreshed',
    options?: VaneErrorOptions,
  ) {
    super(message, options);
  }
}

/** Network failure: connection refused or reset, DNS, TLS, proxy, or timeout. */
export class TransportError extends VaneError<VaneErrorCode> {
  readonly code = 'VANE_TRANSPORT' as const;
  /** True when the failure was the client's own timeout. */
  readonly timedOut: boolean;
  /**
   * @param message - what happened (redacted).
   * @param options - `cause` must be a sanitised error (see `sanitizeCause`).
   */
  constructor(message: string, options?: VaneErrorOptions & { timedOut?: boolean }) {
    super(message, options);
    this.timedOut = options?.timedOut ?? false;
  }
}

/**
 * A file secret could not be written to disk (permissions, disk full). The
 * snapshot that carried it is not installed, so the cache stays whole.
 */
export class SecretFileWriteError extends VaneError<VaneErrorCode> {
  readonly code = 'VANE_SECRET_FILE_WRITE' as const;
  /** @param message - names the directory, never the content. */
  constructor(message: string, options?: VaneErrorOptions) {
    super(message, options);
  }
}

/**
 * The first snapshot broke the app's schema: a required config is missing or
 * invalid. Lists every key with its validator's issues (never the values).
 */
export class ConfigInvalidError extends VaneError {
  readonly code = 'VANE_CONFIG_INVALID' as const;
  /** Every key that failed, with its issues. */
  readonly invalid: readonly InvalidConfig[];
  /** @param invalid - the keys that failed, with their issues. */
  constructor(invalid: readonly InvalidConfig[]) {
    super(
      `the service's configs do not match the schema: ${invalid
        .map((i) => `"${i.key}" (${i.issues.join('; ')})`)
        .join(', ')}`,
    );
    this.invalid = invalid;
  }
}

/**
 * A secret was read while the client serves a last-known-good backup that
 * holds none: with workload identity and no `lastKnownGood.encryptionKey`,
 * secrets are never written to the backup. They arrive with the first
 * successful sync; configs and flags are served meanwhile.
 */
export class SecretsNotAvailableError extends VaneError {
  readonly code = 'VANE_SECRETS_NOT_AVAILABLE' as const;
  /** @param message - what happened and when it ends. */
  constructor(
    message = 'secrets are not available yet: the client started from a last-known-good backup that holds none (workload identity without lastKnownGood.encryptionKey); they arrive with the first successful sync',
  ) {
    super(message);
  }
}

/** The step of a live resource's build that failed (see {@link LiveResourceBuildError}). */
export type LiveResourceBuildStage = 'values' | 'create' | 'ready' | 'timeout';

/** Options of {@link LiveResourceBuildError}. */
export interface LiveResourceBuildErrorOptions extends VaneErrorOptions {
  /** Name of the live resource. */
  resource: string;
  /** The step that failed. */
  stage: LiveResourceBuildStage;
  /** Revision of the values the build read. */
  revision: number;
}

/**
 * A live resource could not be built: a value it names is missing
 * (`values`), its `create` threw (`create`), its readiness check failed
 * (`ready`), or the two took longer than `buildTimeoutMs` (`timeout`). At
 * startup the resource is not opened; on a rebuild the instance in service
 * stays. The message and the `cause` (a sanitised copy of what `create` or
 * `ready` threw, keeping its `name` and `code`) have every secret value the
 * resource reads replaced by `[redacted]`.
 */
export class LiveResourceBuildError extends VaneError<VaneErrorCode> {
  readonly code = 'VANE_LIVE_RESOURCE_BUILD_FAILED' as const;
  /** Name of the live resource. */
  readonly resource: string;
  /** The step that failed. */
  readonly stage: LiveResourceBuildStage;
  /** Revision of the values the build read. */
  readonly revision: number;
  /**
   * @param message - what failed; never a secret value.
   * @param options - resource, stage, revision and the sanitised cause.
   */
  constructor(message: string, options: LiveResourceBuildErrorOptions) {
    super(message, options);
    this.resource = options.resource;
    this.stage = options.stage;
    this.revision = options.revision;
  }
}

/** A live resource was read or borrowed after its `close()` (or its client's). */
export class LiveResourceClosedError extends VaneError<VaneErrorCode> {
  readonly code = 'VANE_LIVE_RESOURCE_CLOSED' as const;
  /** Name of the live resource. */
  readonly resource: string;
  /** @param resource - name of the live resource. */
  constructor(resource: string, message = `live resource "${resource}" is closed`) {
    super(message);
    this.resource = resource;
  }
}
