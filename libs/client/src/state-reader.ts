/**
 * The read surface, written once: every read of the client and of a view,
 * over where its state comes from.
 *
 * @packageDocumentation
 */
import {
  FrontendSecretReadError,
  PublicKeySecretAccessError,
  SecretNotFoundError,
  SecretsNotAvailableError,
} from './errors.js';
import type { KeyType } from '@vane/client-core';
import type { SecretVersionInfo } from './store/change-event.js';
import type { ConfigValue } from '@vane/client-core';
import type { ServiceState } from './store/service-state.js';
import type {
  ConfigKey,
  ConfigOutput,
  FlagKey,
  RegisteredConfigKey,
  RegisteredSchema,
  SecretKey,
  UnlistedConfigKey,
} from './schema/vane-schema.js';
import type { ConfigLookup, FlagState, VaneReader, WidenConfig } from './vane-reader.js';

/** The refusals of a secret read. */
export type SecretReadRefusal = PublicKeySecretAccessError | FrontendSecretReadError | SecretsNotAvailableError;

/** The state a secret read answers from, and whether that state may serve secrets. @internal */
export interface SecretReadTarget {
  readonly state: ServiceState;
  /** False for a last-known-good backup saved without secrets. */
  readonly secretsAvailable: boolean;
}

/** Where a {@link StateReader}'s reads answer from. @internal */
export interface ReadSource {
  /** The key type of the client: a public key is refused every secret read. */
  readonly keyType: KeyType;
  /** The state a read answers from now (called on every read: keep it cheap). */
  readState(): ServiceState;
  /** The state a secret read answers from now. */
  secretTarget(): SecretReadTarget;
  /** Path of `key`'s file for a read on `target`, or `null` (absent, a text secret, or no longer on disk). */
  filePath(target: SecretReadTarget, key: string): string | null;
}

/**
 * The one rule before any secret read: why a read on `target` is refused, or
 * `null`. A public key first (before anything else), then the kind of
 * service the read's snapshot says, then a last-known-good backup without
 * secrets.
 * @internal
 */
export function secretReadRefusalOf(keyType: KeyType, target: SecretReadTarget): SecretReadRefusal | null {
  if (keyType === 'pk') return new PublicKeySecretAccessError();
  if (target.state.snapshot.service.kind === 'frontend') return new FrontendSecretReadError();
  if (!target.secretsAvailable) return new SecretsNotAvailableError();
  return null;
}

/**
 * Every synchronous read of a state, over a `ReadSource`: the
 * client reads the scope's pinned revision or the served one, a
 * `VaneView` its own. One implementation, so the two cannot disagree.
 */
export abstract class StateReader implements VaneReader {
  readonly #source: ReadSource;

  /** @internal */
  protected constructor(source: ReadSource) {
    this.#source = source;
  }

  /**
   * A config value. With a schema, a listed key returns its validator's
   * output type (a required key is always present after `create()`).
   * Otherwise the value has its JSON type, and `defaultValue` is returned only
   * when the key is missing (a key holding `null` returns `null`); the type
   * parameter is then a claim, not a runtime check.
   */
  config<K extends RegisteredConfigKey>(key: K): ConfigOutput<RegisteredSchema, K>;
  config<K extends RegisteredConfigKey>(
    key: K,
    defaultValue: Exclude<ConfigOutput<RegisteredSchema, K>, undefined>,
  ): Exclude<ConfigOutput<RegisteredSchema, K>, undefined>;
  config<T extends ConfigValue = ConfigValue>(key: UnlistedConfigKey): T | undefined;
  config<T extends ConfigValue>(key: UnlistedConfigKey, defaultValue: T): WidenConfig<T>;
  config(key: string, defaultValue?: unknown): unknown {
    const value = this.#source.readState().snapshot.configs.get(key);
    return value === undefined ? defaultValue : value;
  }

  /** Looks a config up, telling "not found" from a value (including `null`). */
  configLookup(key: ConfigKey<RegisteredSchema>): ConfigLookup {
    const value = this.#source.readState().snapshot.configs.get(key);
    return value === undefined ? { found: false, value: undefined } : { found: true, value };
  }

  /** Every config, as an immutable map: the same object until the next change replaces it. */
  configs(): ReadonlyMap<string, ConfigValue> {
    return this.#source.readState().snapshot.configs;
  }

  /** A flag's server-computed `is_active`, or `defaultValue` (false) when the flag is not defined. */
  flag(key: FlagKey<RegisteredSchema>, defaultValue = false): boolean {
    const active = this.#source.readState().flagValues.get(key);
    return active === undefined ? defaultValue : active;
  }

  /** Tells "not defined" from "defined and off". */
  flagState(key: FlagKey<RegisteredSchema>): FlagState {
    const flag = this.#source.readState().snapshot.flags.get(key);
    return flag === undefined ? { defined: false, active: false } : { defined: true, active: flag.isActive };
  }

  /** Keys of every flag the snapshot defines (e.g. to check decorator keys at startup). */
  flagKeys(): string[] {
    return [...this.#source.readState().snapshot.flags.keys()];
  }

  /**
   * A text secret's value; `null` for an absent key or a file secret.
   *
   * @throws PublicKeySecretAccessError - with a public key (synchronously, no network call).
   * @throws FrontendSecretReadError - when the service kind is `frontend`.
   * @throws SecretsNotAvailableError - while serving a last-known-good backup saved without secrets.
   */
  secret(key: SecretKey<RegisteredSchema, 'text'>): string | null {
    const secret = this.#allowedState().snapshot.secrets.get(key);
    return secret !== undefined && secret.type === 'text' ? secret.value : null;
  }

  /**
   * Path of a file secret's file (0600, in a 0700 directory); `null` for an
   * absent key, a text secret, or once the file is gone (after `close()`, or
   * a view's `release()`). Read live, the same path for a key across
   * syncs, rewritten atomically: its content follows rotations. Read pinned
   * (a view, a pinned scope), the path of the version file of that
   * revision (`<name>.v<version>`), whose content never changes and which
   * stays while the revision is held.
   *
   * @throws PublicKeySecretAccessError, FrontendSecretReadError, SecretsNotAvailableError - as {@link StateReader.secret}.
   */
  secretFile(key: SecretKey<RegisteredSchema, 'file'>): string | null {
    const target = this.#source.secretTarget();
    this.#assertSecretRead(target);
    return this.#source.filePath(target, key);
  }

  /**
   * Type and version of a secret, without its value; `null` when absent.
   *
   * @throws PublicKeySecretAccessError, FrontendSecretReadError, SecretsNotAvailableError - as {@link StateReader.secret}.
   */
  secretInfo(key: SecretKey<RegisteredSchema>): SecretVersionInfo | null {
    const secret = this.#allowedState().snapshot.secrets.get(key);
    return secret === undefined ? null : { type: secret.type, version: secret.version };
  }

  /** Like {@link StateReader.secret}, but throws `SecretNotFoundError` instead of returning `null`. */
  requireSecret(key: SecretKey<RegisteredSchema, 'text'>): string {
    return required(this.secret(key), key, 'text');
  }

  /** Like {@link StateReader.secretFile}, but throws `SecretNotFoundError` instead of returning `null`. */
  requireSecretFile(key: SecretKey<RegisteredSchema, 'file'>): string {
    return required(this.secretFile(key), key, 'file');
  }

  /**
   * Why a secret read would be refused right now, or `null` when it would
   * be served: the one rule every secret read follows (the client's, a
   * pinned view's, the Nest `@Secret()` pipe's and its startup check's).
   * A `PublicKeySecretAccessError` or `FrontendSecretReadError` never goes
   * away; a `SecretsNotAvailableError` (started stale from a backup without
   * secrets) ends with the first sync.
   */
  secretReadRefusal(): SecretReadRefusal | null {
    return secretReadRefusalOf(this.#source.keyType, this.#source.secretTarget());
  }

  /** The revision reads answer from. */
  get revision(): number {
    return this.#source.readState().snapshot.revision;
  }

  /** The service kind the server reports (`frontend` means no secrets). */
  get serviceKind(): string {
    return this.#source.readState().snapshot.service.kind;
  }

  /** The service slug the server reports. */
  get serviceSlug(): string {
    return this.#source.readState().snapshot.service.slug;
  }

  /** The state a secret read answers from, once the secret-read rule allowed it. */
  #allowedState(): ServiceState {
    const target = this.#source.secretTarget();
    this.#assertSecretRead(target);
    return target.state;
  }

  #assertSecretRead(target: SecretReadTarget): void {
    const refusal = secretReadRefusalOf(this.#source.keyType, target);
    if (refusal !== null) throw refusal;
  }
}

function required(value: string | null, key: string, kind: 'text' | 'file'): string {
  if (value === null) throw new SecretNotFoundError(key, `${kind} secret "${key}" not found`);
  return value;
}
