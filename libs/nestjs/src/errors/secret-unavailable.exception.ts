import { InternalServerErrorException } from '@nestjs/common';

/** Why `@Secret()` could not inject a secret. */
export type SecretUnavailableReason = 'absent' | 'public-key' | 'frontend-service' | 'not-available-yet';

/**
 * Thrown by `@Secret()` when a required secret cannot be read: the request
 * fails with a 500 whose body is Nest's generic one,
 * `{ statusCode: 500, message: 'Internal server error' }`, so a caller learns
 * nothing about the app's secrets. The key, the reason and what to do are on
 * the exception (`key`, `reason`, `detail`) and in the error line `@Secret()`
 * logs. Mark the parameter `{ optional: true }` to get `undefined` instead.
 */
export class SecretUnavailableException extends InternalServerErrorException {
  /** Stable code. */
  readonly code = 'VANE_NEST_SECRET_UNAVAILABLE' as const;
  /** The secret's key (a name, never a value). */
  readonly key: string;
  /** Why it is unavailable. */
  readonly reason: SecretUnavailableReason;
  /** What happened and what to do, naming the key (never a value); logged, never sent to the caller. */
  readonly detail: string;

  /**
   * @param key - the secret's key.
   * @param reason - why it cannot be read.
   * @param file - true when a file secret was asked for.
   */
  constructor(key: string, reason: SecretUnavailableReason, file = false) {
    const what = `${file ? 'file' : 'text'} secret "${key}"`;
    const message =
      reason === 'absent'
        ? `${what} is not in the Vane snapshot: create it in the console, fix the key, or mark the parameter @Secret('${key}', { optional: true })`
        : reason === 'public-key'
          ? `${what} cannot be read: the Vane client uses a public key (svp_…), which never receives secrets; use a secret key (svs_…)`
          : reason === 'frontend-service'
            ? `${what} cannot be read: the Vane service is of kind "frontend", which never holds secrets`
            : `${what} is not available yet: the app started from a last-known-good backup without secrets, and the service has not answered since; it is served after the first successful sync`;
    super({ statusCode: 500, message: 'Internal server error' });
    this.name = 'SecretUnavailableException';
    this.key = key;
    this.reason = reason;
    this.detail = message;
  }
}
