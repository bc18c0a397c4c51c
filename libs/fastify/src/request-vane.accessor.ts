/**
 * The implementation of `request.vane`. Internal: users see {@link RequestVane}.
 *
 * @packageDocumentation
 */
import {
  InvalidArgumentError,
  type AbResults,
  type ConfigLookup,
  type ConfigValue,
  type FlagState,
  type SecretVersionInfo,
  type VaneReader,
  type VaneSnapshot,
  type WidenConfig,
} from '@vane/client';
import type { RequestVane } from './request-vane.js';

/** `request.vane`: reads of the request's snapshot (with `consistentReads: false`, live reads), plus its A/B memo. */
export class RequestVaneAccessor implements RequestVane {
  readonly #client: VaneReader;
  /** The request's A/B memo, shared with the route's A/B guards. */
  readonly evaluate: (keys: readonly string[]) => Promise<AbResults>;
  /** The request's snapshot, whose scope its hooks and handler run in; `undefined` with `consistentReads: false`. */
  readonly snapshot: VaneSnapshot | undefined;

  /**
   * @param reader - the request's snapshot, or the client itself (live reads).
   * @param snapshot - the request's snapshot, when it has one.
   */
  constructor(reader: VaneReader, evaluate: (keys: readonly string[]) => Promise<AbResults>, snapshot?: VaneSnapshot) {
    this.#client = reader;
    this.evaluate = evaluate;
    this.snapshot = snapshot;
  }

  config<T extends ConfigValue = ConfigValue>(key: string): T | undefined;
  config<T extends ConfigValue>(key: string, defaultValue: T): WidenConfig<T>;
  config(key: string, defaultValue?: ConfigValue): ConfigValue | undefined {
    return arguments.length < 2 ? this.#client.config(key) : this.#client.config(key, defaultValue as ConfigValue);
  }

  configLookup(key: string): ConfigLookup {
    return this.#client.configLookup(key);
  }

  flag(key: string, defaultValue = false): boolean {
    return this.#client.flag(key, defaultValue);
  }

  flagState(key: string): FlagState {
    return this.#client.flagState(key);
  }

  secret(key: string): string | null {
    return this.#client.secret(key);
  }

  secretFile(key: string): string | null {
    return this.#client.secretFile(key);
  }

  secretInfo(key: string): SecretVersionInfo | null {
    return this.#client.secretInfo(key);
  }

  requireSecret(key: string): string {
    return this.#client.requireSecret(key);
  }

  requireSecretFile(key: string): string {
    return this.#client.requireSecretFile(key);
  }

  ab(key: string): Promise<boolean>;
  ab(keys: readonly string[]): Promise<AbResults>;
  async ab(keys: string | readonly string[]): Promise<boolean | AbResults> {
    if (typeof keys === 'string') return (await this.evaluate([keys]))[keys]!;
    if (!Array.isArray(keys) || keys.some((k) => typeof k !== 'string'))
      throw new InvalidArgumentError('request.vane.ab(): keys must be a string or an array of strings');
    return this.evaluate(keys);
  }
}
