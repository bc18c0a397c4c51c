/**
 * The implementation of `req.vane`. Internal: users see {@link RequestVane}.
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
import type { NextFunction } from 'express';
import type { AbBatch } from './ab-batch.js';
import type { RequestVane } from './request-vane.js';

/** `req.vane`: reads of the request's snapshot (or, with `consistentReads: false`, live reads), plus its A/B memo. */
export class RequestVaneAccessor implements RequestVane {
  readonly #client: VaneReader;
  readonly #snapshot: VaneSnapshot | undefined;
  #scoped = false;
  /** The request's A/B memo, shared with the route's A/B guards. */
  readonly batch: AbBatch;

  /**
   * @param reader - the request's snapshot, or the client itself (live reads).
   * @param snapshot - the request's snapshot, whose scope the rest of the chain runs in.
   */
  constructor(reader: VaneReader, batch: AbBatch, snapshot?: VaneSnapshot) {
    this.#client = reader;
    this.batch = batch;
    this.#snapshot = snapshot;
  }

  /**
   * Calls `next()`, the first time inside the request's pinned scope (so
   * `vane.client` reads in the rest of the chain answer from the request's
   * revision); later calls (another guard of the route) are already in it.
   */
  continue(next: NextFunction): void {
    if (this.#snapshot === undefined || this.#scoped) return next();
    this.#scoped = true;
    this.#snapshot.run(next);
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
    if (typeof keys === 'string') return (await this.batch.evaluate([keys]))[keys]!;
    if (!Array.isArray(keys) || keys.some((k) => typeof k !== 'string'))
      throw new InvalidArgumentError('req.vane.ab(): keys must be a string or an array of strings');
    return this.batch.evaluate(keys);
  }
}
