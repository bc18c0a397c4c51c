/**
 * `req.vane`: what a route reads its configs, flags and secrets through.
 *
 * @packageDocumentation
 */
import type { AbResults, ConfigLookup, ConfigValue, FlagState, SecretVersionInfo, WidenConfig } from '@vane/client';

/**
 * The accessor `vane.middleware()` puts on every request as `req.vane`.
 * Reads are synchronous and live: each call reads the client's current
 * cache, so a change pushed by the service is seen by the next read. The
 * semantics are the client's: a missing config gives the default (or
 * `undefined`), a missing flag gives the default (`false`), a missing secret
 * gives `null`.
 *
 * @example
 * ```ts
 * app.get('/checkout', (req, res) => {
 *   const discount = req.vane.config('pricing.discount', 0);
 *   res.json({ discount, newCheckout: req.vane.flag('new-checkout') });
 * });
 * ```
 */
export interface RequestVane {
  /**
   * A config value with its JSON type; `defaultValue` only when the key is
   * missing (a key holding `null` gives `null`). The type parameter is a claim,
   * not a runtime check.
   */
  config<T extends ConfigValue = ConfigValue>(key: string): T | undefined;
  /** A config value, or `defaultValue` when the key is missing. */
  config<T extends ConfigValue>(key: string, defaultValue: T): WidenConfig<T>;
  /** Looks a config up, telling "not found" from a value (including `null`). */
  configLookup(key: string): ConfigLookup;
  /** A flag's server-computed value, or `defaultValue` (false) when the flag is not defined. */
  flag(key: string, defaultValue?: boolean): boolean;
  /** Tells "not defined" from "defined and off". */
  flagState(key: string): FlagState;
  /**
   * A text secret; `null` for an absent key or a file secret.
   * @throws PublicKeySecretAccessError - with a public key.
   * @throws FrontendSecretReadError - when the service kind is `frontend`.
   */
  secret(key: string): string | null;
  /**
   * The path of a file secret's private file (0600); `null` for an absent
   * key or a text secret.
   * @throws PublicKeySecretAccessError - with a public key.
   * @throws FrontendSecretReadError - when the service kind is `frontend`.
   */
  secretFile(key: string): string | null;
  /** Type and version of a secret, never its value; `null` when absent. */
  secretInfo(key: string): SecretVersionInfo | null;
  /** Like {@link RequestVane.secret}, but throws `SecretNotFoundError` instead of returning `null`. */
  requireSecret(key: string): string;
  /** Like {@link RequestVane.secretFile}, but throws `SecretNotFoundError` instead of returning `null`. */
  requireSecretFile(key: string): string;
  /**
   * A flag evaluated for this request's user through the A/B add-on (the
   * context comes from the `abContext` option). Results are memoised per
   * request and shared with the A/B guards of the route: a key already
   * evaluated for this request costs no call, and a call made here also
   * carries the keys of the route's A/B guards not evaluated yet.
   *
   * @throws AbContextError - (rejection) the context is invalid.
   * @throws AddonNotAvailableError and the client's other HTTP errors (rejection).
   */
  ab(key: string): Promise<boolean>;
  /** Several flags evaluated for this request's user, in one call. @see {@link RequestVane.ab} */
  ab(keys: readonly string[]): Promise<AbResults>;
}
