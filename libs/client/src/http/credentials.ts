/**
 * The authentication seam: how a request gets its credential headers.
 *
 * @packageDocumentation
 */
import { assertValidApiKey, keyTypeOf, type KeyType } from '@vane/client-core';
import type { VaneLogger } from '../util/logger.js';
import { redactKey } from '../util/redact.js';
import type { Clock, Timers } from '../util/timers.js';
import type { Transport } from './transport.js';

/**
 * What the client lends its credentials when it starts: its transport (so a
 * token exchange goes through the same dispatcher and proxy), its base URL,
 * timeout, time sources and logger.
 */
export interface CredentialsContext {
  /** The service's base URL (the token exchange is `{baseUrl}/v1/auth/token-exchange`). */
  readonly baseUrl: URL;
  /** The client's transport. */
  readonly transport: Transport;
  /** The client's HTTP timeout, in milliseconds. */
  readonly timeoutMs: number;
  /** The client's timers (refresh before expiry on these, so tests can drive them). */
  readonly timers: Timers;
  /** The client's clock. */
  readonly clock: Clock;
  /** The client's logger. */
  readonly logger: VaneLogger;
  /** Aborted when the client closes. */
  readonly signal: AbortSignal;
}

/**
 * Supplies the authentication headers of every request the client sends.
 *
 * The client ships {@link ApiKeyCredentials} (the static `X-Service-API-Key`
 * header). Workload identity plugs in as another implementation that yields
 * `Authorization: Bearer <session>` and re-exchanges its session when told a
 * request was answered 401; the transport does not change.
 */
export interface Credentials {
  /** Key type exposed by the client: `sk`, `pk`, or `''` for a session only. */
  readonly keyType: KeyType;
  /**
   * A redacted description for logs (e.g. `svs_…abcd`); never the credential.
   */
  describe(): string;
  /**
   * Headers to add to the next request. May be async (e.g. to refresh a
   * session before it expires). May throw a `VaneError` (e.g.
   * `SessionExpiredError`), which the caller of the request receives.
   */
  headers(): Record<string, string> | Promise<Record<string, string>>;
  /**
   * Called when a request sent with these credentials was answered 401.
   * Return `true` if the credentials were renewed and the request should be
   * retried once; `false` (or omit the method) to report the 401. May throw
   * a `VaneError` (e.g. `SessionExpiredError`) that replaces the 401.
   */
  onUnauthorized?(): boolean | Promise<boolean>;
  /**
   * Called once by `VaneClient.create` before the initial sync (e.g. to
   * detect the platform and run the first token exchange). A rejection
   * fails the creation with that error (e.g.
   * `WorkloadIdentityNotConfiguredError`, `TokenExchangeFailedError`).
   */
  start?(context: CredentialsContext): void | Promise<void>;
  /** Releases whatever the credentials hold (timers, sockets). Called by `close()`. */
  close?(): void | Promise<void>;
}

/** Static API key credentials: the `X-Service-API-Key` header. */
export class ApiKeyCredentials implements Credentials {
  /** `sk` for `svs_…`, `pk` for `svp_…`. */
  readonly keyType: KeyType;
  readonly #headers: Readonly<Record<string, string>>;
  readonly #redacted: string;

  /**
   * @param apiKey - `svs_…` or `svp_…`.
   * @throws InvalidArgumentError - when the key is malformed (before any request).
   */
  constructor(apiKey: string) {
    assertValidApiKey(apiKey);
    this.keyType = keyTypeOf(apiKey);
    this.#headers = Object.freeze({ 'x-service-api-key': apiKey });
    this.#redacted = redactKey(apiKey);
  }

  /** The redacted key, e.g. `svs_…abcd`. */
  describe(): string {
    return this.#redacted;
  }

  /** `{ 'x-service-api-key': <key> }`. */
  headers(): Record<string, string> {
    return this.#headers;
  }

  /** A static key cannot be renewed: always `false`. */
  onUnauthorized(): boolean {
    return false;
  }

  /** Never prints the key. */
  toJSON(): string {
    return `ApiKeyCredentials(${this.#redacted})`;
  }
}
