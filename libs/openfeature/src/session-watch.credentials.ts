/**
 * Credentials that report when a session expires and when a new one is in
 * use, around the credentials the client would use anyway. The client has no
 * session event of its own: expiry surfaces only as a `SessionExpiredError`
 * from these two calls.
 *
 * @packageDocumentation
 */
import type { Credentials } from '@vane/client';
import type { CredentialsContext, KeyType } from '@vane/client/adapter';

/** What the watcher tells the provider. */
export interface SessionObserver {
  /** A request could not get a valid session (`error` is the client's `SessionExpiredError`). */
  expired(error: unknown): void;
  /** After an expiry, a request got a session different from the one that expired. */
  renewed(): void;
}

/** Whether `error` is the client's session-expired error (by its stable code). */
export function isSessionExpired(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'VANE_SESSION_EXPIRED';
}

/** Forwards every call to `inner`, watching for session expiry and renewal. */
export class SessionWatchCredentials implements Credentials {
  readonly #inner: Credentials;
  readonly #observer: SessionObserver;
  /** The authorization in use when the session expired; compared, never logged or exposed. */
  #expiredAuthorization: string | undefined;
  /** The authorization of the last request, for the same comparison. */
  #lastAuthorization: string | undefined;
  #expired = false;

  constructor(inner: Credentials, observer: SessionObserver) {
    this.#inner = inner;
    this.#observer = observer;
  }

  /** The inner credentials' key type. */
  get keyType(): KeyType {
    return this.#inner.keyType;
  }

  /** The inner credentials' redacted description. */
  describe(): string {
    return this.#inner.describe();
  }

  /** The inner headers; a `SessionExpiredError` is reported, a fresh session after one too. */
  async headers(): Promise<Record<string, string>> {
    let headers: Record<string, string>;
    try {
      headers = await this.#inner.headers();
    } catch (error) {
      this.#fail(error, this.#lastAuthorization);
      throw error;
    }
    this.#lastAuthorization = headers['authorization'];
    if (this.#expired && headers['authorization'] !== this.#expiredAuthorization) {
      this.#expired = false;
      this.#expiredAuthorization = undefined;
      this.#observer.renewed();
    }
    return headers;
  }

  /** The inner renewal after a 401; a `SessionExpiredError` it throws is reported. */
  async onUnauthorized(): Promise<boolean> {
    if (this.#inner.onUnauthorized === undefined) return false;
    try {
      return await this.#inner.onUnauthorized();
    } catch (error) {
      this.#fail(error, this.#lastAuthorization);
      throw error;
    }
  }

  /** Starts the inner credentials. */
  async start(context: CredentialsContext): Promise<void> {
    await this.#inner.start?.(context);
  }

  /** Closes the inner credentials. */
  async close(): Promise<void> {
    await this.#inner.close?.();
  }

  /** Never prints a credential. */
  toJSON(): string {
    return `SessionWatchCredentials(${this.#inner.describe()})`;
  }

  #fail(error: unknown, authorization: string | undefined): void {
    if (!isSessionExpired(error)) return;
    if (!this.#expired) {
      this.#expired = true;
      this.#expiredAuthorization = authorization;
    }
    this.#observer.expired(error);
  }
}
