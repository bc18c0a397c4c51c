/**
 * The authentication seam: how a request gets its credential headers.
 *
 * @packageDocumentation
 */
import { assertValidApiKey, keyTypeOf, type KeyType } from './api-key.js';
import { redactKey } from './redact.js';

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
