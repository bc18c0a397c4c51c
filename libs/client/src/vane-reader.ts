/**
 * The read-only surface of a Vane client.
 *
 * @packageDocumentation
 */
import type { SecretVersionInfo } from './store/change-event.js';
import type {
  ConfigKey,
  ConfigOutput,
  FlagKey,
  RegisteredConfigKey,
  RegisteredSchema,
  SecretKey,
  UnlistedConfigKey,
} from './schema/vane-schema.js';
import type { ConfigValue } from '@vane/client-core';

/** Result of a config lookup: tells a missing key from a key holding `null`. */
export type ConfigLookup =
  { readonly found: true; readonly value: ConfigValue } | { readonly found: false; readonly value: undefined };

/** A flag's state: `defined` tells "not defined" from "defined and off". */
export interface FlagState {
  /** True when the snapshot has the flag. */
  readonly defined: boolean;
  /** The server-computed `is_active`; false when not defined. */
  readonly active: boolean;
}

/** Widens a literal default (`5`) to its JSON type (`number`). */
export type WidenConfig<T> = T extends string ? string : T extends number ? number : T extends boolean ? boolean : T;

/**
 * What code that only reads (a request handler, a template, a test double)
 * needs from a Vane client: synchronous reads of the current snapshot.
 * `VaneClient` implements it; `req.vane` in `@vane/express` extends it.
 */
export interface VaneReader {
  /**
   * A config value. A key the registered schema lists reads as its
   * validator's output type (see `VaneRegister`).
   */
  config<K extends RegisteredConfigKey>(key: K): ConfigOutput<RegisteredSchema, K>;
  /** A listed config value, or `defaultValue` when the key is missing. */
  config<K extends RegisteredConfigKey>(
    key: K,
    defaultValue: Exclude<ConfigOutput<RegisteredSchema, K>, undefined>,
  ): Exclude<ConfigOutput<RegisteredSchema, K>, undefined>;
  /**
   * A config value with its JSON type; `defaultValue` only when the key is
   * missing (a key holding `null` gives `null`). The type parameter is a
   * claim, not a runtime check. With a strict registered schema, a key it does
   * not list is a compile error.
   */
  config<T extends ConfigValue = ConfigValue>(key: UnlistedConfigKey): T | undefined;
  /** A config value, or `defaultValue` when the key is missing. */
  config<T extends ConfigValue>(key: UnlistedConfigKey, defaultValue: T): WidenConfig<T>;
  /** Looks a config up, telling "not found" from a value (including `null`). */
  configLookup(key: ConfigKey<RegisteredSchema>): ConfigLookup;
  /** A flag's server-computed value, or `defaultValue` (false) when the flag is not defined. */
  flag(key: FlagKey<RegisteredSchema>, defaultValue?: boolean): boolean;
  /** Tells "not defined" from "defined and off". */
  flagState(key: FlagKey<RegisteredSchema>): FlagState;
  /**
   * A text secret; `null` for an absent key or a file secret.
   * @throws PublicKeySecretAccessError - with a public key.
   * @throws FrontendSecretReadError - when the service kind is `frontend`.
   */
  secret(key: SecretKey<RegisteredSchema, 'text'>): string | null;
  /**
   * The path of a file secret's private file (0600); `null` for an absent
   * key or a text secret.
   * @throws PublicKeySecretAccessError - with a public key.
   * @throws FrontendSecretReadError - when the service kind is `frontend`.
   */
  secretFile(key: SecretKey<RegisteredSchema, 'file'>): string | null;
  /** Type and version of a secret, never its value; `null` when absent. */
  secretInfo(key: SecretKey<RegisteredSchema>): SecretVersionInfo | null;
  /** Like {@link VaneReader.secret}, but throws `SecretNotFoundError` instead of returning `null`. */
  requireSecret(key: SecretKey<RegisteredSchema, 'text'>): string;
  /** Like {@link VaneReader.secretFile}, but throws `SecretNotFoundError` instead of returning `null`. */
  requireSecretFile(key: SecretKey<RegisteredSchema, 'file'>): string;
}
