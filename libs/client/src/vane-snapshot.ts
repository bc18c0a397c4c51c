/**
 * Reads fixed to one revision: the {@link VaneSnapshot} reader, and the read
 * rules it shares with the client (one home for each).
 *
 * @packageDocumentation
 */
import {
  FrontendSecretReadError,
  PublicKeySecretAccessError,
  SecretNotFoundError,
  SecretsNotAvailableError,
} from './errors.js';
import type { KeyType } from './http/api-key.js';
import type { SecretVersionInfo } from './store/change-event.js';
import type { RevisionPin } from './store/revision-pins.js';
import type { ConfigValue } from './store/snapshot.js';
import type { SnapshotState } from './store/snapshot-state.js';
import type {
  ConfigKey,
  ConfigOutput,
  FlagKey,
  RegisteredConfigKey,
  RegisteredSchema,
  UnlistedConfigKey,
} from './schema/vane-schema.js';
import type { ConfigLookup, FlagState, VaneReader, WidenConfig } from './vane-reader.js';

/**
 * A reader fixed to one revision: every read answers from the snapshot that
 * was served when it was taken (`client.snapshot()`), whatever lands later.
 * Same reads as the client, same rules (a public key or a `frontend`
 * service is refused every secret read).
 *
 * It holds its revision until {@link VaneSnapshot.release}: while held, a
 * file secret's path ({@link VaneSnapshot.secretFile}) names a file of that
 * version, whose content never changes. Once the revision is replaced, it is
 * held at most `pinMaxAgeMs` (client option) longer; after that, or after
 * `release()`, file paths are `null`. Every other read keeps answering from
 * the revision as long as the object lives.
 *
 * @example
 * ```ts
 * const snap = vane.snapshot();
 * try {
 *   if (snap.flag('new-pricing')) price *= 1 - snap.config('pricing.discount', 0);
 * } finally {
 *   snap.release();
 * }
 * ```
 */
export interface VaneSnapshot extends VaneReader {
  /** The revision every read of this snapshot answers from. */
  readonly revision: number;
  /** Every config of the revision, as an immutable map. */
  configs(): ReadonlyMap<string, ConfigValue>;
  /**
   * Runs `fn` with every read of the client that made this snapshot pinned
   * to its revision: reads of `client` itself (and of code that reads
   * through it, e.g. an OpenFeature provider) inside `fn`, and in whatever
   * `fn` starts or awaits, answer from this snapshot. `fn`'s return value
   * (a promise included) is returned as is; this does not release the
   * snapshot. After release, or once the revision is let go, reads inside
   * `fn` are live.
   */
  run<T>(fn: () => T): T;
  /**
   * Lets go of the revision (idempotent): its file secrets' version files are
   * removed once nothing else holds it. Reads other than file paths keep answering.
   */
  release(): void;
}

/**
 * The one rule before any secret read, for the client's reads and every
 * pinned one: why a read on `state` is refused, or `null`. A public key
 * first (before anything else), then the kind of service the read's
 * snapshot says, then a last-known-good backup without secrets.
 * @internal
 */
export function secretReadRefusalOf(
  keyType: KeyType,
  state: SnapshotState,
  secretsAvailable: boolean,
): PublicKeySecretAccessError | FrontendSecretReadError | SecretsNotAvailableError | null {
  if (keyType === 'pk') return new PublicKeySecretAccessError();
  if (state.snapshot.service.kind === 'frontend') return new FrontendSecretReadError();
  if (!secretsAvailable) return new SecretsNotAvailableError();
  return null;
}

/** {@link secretReadRefusalOf}, thrown. @internal */
export function assertSecretRead(keyType: KeyType, state: SnapshotState, secretsAvailable: boolean): void {
  const refusal = secretReadRefusalOf(keyType, state, secretsAvailable);
  if (refusal !== null) throw refusal;
}

/** A config read on `state`: the value, or `defaultValue` when the key is missing. @internal */
export function configOf(state: SnapshotState, key: string, defaultValue: unknown): unknown {
  const value = state.snapshot.configs.get(key);
  return value === undefined ? defaultValue : value;
}

/** A config lookup on `state`. @internal */
export function configLookupOf(state: SnapshotState, key: string): ConfigLookup {
  const value = state.snapshot.configs.get(key);
  return value === undefined ? { found: false, value: undefined } : { found: true, value };
}

/** A flag read on `state`. @internal */
export function flagOf(state: SnapshotState, key: string, defaultValue: boolean): boolean {
  const active = state.flagValues.get(key);
  return active === undefined ? defaultValue : active;
}

/** A flag's state on `state`. @internal */
export function flagStateOf(state: SnapshotState, key: string): FlagState {
  const flag = state.snapshot.flags.get(key);
  return flag === undefined ? { defined: false, active: false } : { defined: true, active: flag.isActive };
}

/** A text secret on `state` (after {@link assertSecretRead}). @internal */
export function textSecretOf(state: SnapshotState, key: string): string | null {
  const secret = state.snapshot.secrets.get(key);
  return secret !== undefined && secret.type === 'text' ? secret.value : null;
}

/** A secret's type and version on `state` (after {@link assertSecretRead}). @internal */
export function secretInfoOf(state: SnapshotState, key: string): SecretVersionInfo | null {
  const secret = state.snapshot.secrets.get(key);
  return secret === undefined ? null : { type: secret.type, version: secret.version };
}

/** `value`, or `SecretNotFoundError` for `null`. @internal */
export function required(value: string | null, key: string, kind: 'text' | 'file'): string {
  if (value === null) throw new SecretNotFoundError(key, `${kind} secret "${key}" not found`);
  return value;
}

/** What a {@link PinnedSnapshot} needs from its client. @internal */
export interface SnapshotHost {
  readonly keyType: KeyType;
  /** Path of the version file of `key` in `state`, or `undefined`. */
  versionFilePath(state: SnapshotState, key: string): string | undefined;
  /** Runs `fn` in a scope pinned to `pin`. */
  run<T>(pin: RevisionPin, fn: () => T): T;
  /** Lets go of `pin`. */
  drop(pin: RevisionPin): void;
}

/** The {@link VaneSnapshot} the client hands out. @internal */
export class PinnedSnapshot implements VaneSnapshot {
  readonly #state: SnapshotState;
  readonly #pin: RevisionPin;
  readonly #host: SnapshotHost;
  #released = false;

  constructor(state: SnapshotState, pin: RevisionPin, host: SnapshotHost) {
    this.#state = state;
    this.#pin = pin;
    this.#host = host;
  }

  get revision(): number {
    return this.#state.snapshot.revision;
  }

  config<K extends RegisteredConfigKey>(key: K): ConfigOutput<RegisteredSchema, K>;
  config<K extends RegisteredConfigKey>(
    key: K,
    defaultValue: Exclude<ConfigOutput<RegisteredSchema, K>, undefined>,
  ): Exclude<ConfigOutput<RegisteredSchema, K>, undefined>;
  config<T extends ConfigValue = ConfigValue>(key: UnlistedConfigKey): T | undefined;
  config<T extends ConfigValue>(key: UnlistedConfigKey, defaultValue: T): WidenConfig<T>;
  config(key: string, defaultValue?: unknown): unknown {
    return configOf(this.#state, key, defaultValue);
  }

  configLookup(key: ConfigKey<RegisteredSchema>): ConfigLookup {
    return configLookupOf(this.#state, key);
  }

  configs(): ReadonlyMap<string, ConfigValue> {
    return this.#state.snapshot.configs;
  }

  flag(key: FlagKey<RegisteredSchema>, defaultValue = false): boolean {
    return flagOf(this.#state, key, defaultValue);
  }

  flagState(key: FlagKey<RegisteredSchema>): FlagState {
    return flagStateOf(this.#state, key);
  }

  secret(key: string): string | null {
    assertSecretRead(this.#host.keyType, this.#state, this.#pin.secretsAvailable);
    return textSecretOf(this.#state, key);
  }

  secretFile(key: string): string | null {
    assertSecretRead(this.#host.keyType, this.#state, this.#pin.secretsAvailable);
    // The version file exists while the pin holds this state.
    if (this.#released || this.#pin.state !== this.#state) return null;
    return this.#host.versionFilePath(this.#state, key) ?? null;
  }

  secretInfo(key: string): SecretVersionInfo | null {
    assertSecretRead(this.#host.keyType, this.#state, this.#pin.secretsAvailable);
    return secretInfoOf(this.#state, key);
  }

  requireSecret(key: string): string {
    return required(this.secret(key), key, 'text');
  }

  requireSecretFile(key: string): string {
    return required(this.secretFile(key), key, 'file');
  }

  run<T>(fn: () => T): T {
    return this.#host.run(this.#pin, fn);
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.#host.drop(this.#pin);
  }
}
