/**
 * A last-known-good store in Redis, shared by every instance of a fleet.
 *
 * @packageDocumentation
 */
import { InvalidArgumentError } from '../errors.js';
import type { LastKnownGoodStore } from './last-known-good-store.js';

/**
 * The two commands the store needs. A connected node-redis client
 * (`createClient()` from `redis` v4 to v6, the tested one) fits as is, and so
 * does an `ioredis` client or a cluster client of either.
 */
export interface RedisCommands {
  /** `GET key`. */
  get(key: string): Promise<unknown>;
  /** `SET key value`. */
  set(key: string, value: string): Promise<unknown>;
}

/** Options of {@link RedisBackupStore}. */
export interface RedisBackupStoreOptions {
  /**
   * A connected Redis client (node-redis recommended). The store never
   * connects, closes or reconfigures it: its lifetime is the application's.
   */
  readonly client: RedisCommands;
  /**
   * Prefix of the keys; the service's base URL follows it, so one Redis
   * holds the backups of many services side by side.
   * @default 'vane:last-known-good:'
   */
  readonly keyPrefix?: string;
}

/** Default {@link RedisBackupStoreOptions.keyPrefix}. */
export const DEFAULT_REDIS_KEY_PREFIX = 'vane:last-known-good:';

/**
 * Keeps each service's backup under one Redis key
 * (`vane:last-known-good:https://shop.vane.example`), so every instance of a
 * fleet reads and writes the same backup and a new pod can start while the
 * service is down. A write is a single `SET`: readers see the old document
 * or the new one. Instances that share a backup must share its key: the
 * same static API key, or one `encryptionKey` for the fleet.
 *
 * @example
 * ```ts
 * const redis = await createClient({ url: process.env.REDIS_URL }).connect();
 * lastKnownGood: { store: new RedisBackupStore({ client: redis }) }
 * ```
 */
export class RedisBackupStore implements LastKnownGoodStore {
  readonly #client: RedisCommands;
  /** The key prefix in use. */
  readonly keyPrefix: string;

  /** @throws InvalidArgumentError - when `client` has no `get`/`set`, or the prefix is not a string. */
  constructor(options: RedisBackupStoreOptions) {
    const client = (options as { client?: Partial<RedisCommands> } | null)?.client;
    if (typeof client?.get !== 'function' || typeof client.set !== 'function')
      throw new InvalidArgumentError('RedisBackupStore: client must be a Redis client (node-redis createClient())');
    if (options.keyPrefix !== undefined && typeof options.keyPrefix !== 'string')
      throw new InvalidArgumentError('RedisBackupStore: keyPrefix must be a string');
    this.#client = options.client;
    this.keyPrefix = options.keyPrefix ?? DEFAULT_REDIS_KEY_PREFIX;
  }

  /** The key of a service's backup. */
  keyFor(serviceId: string): string {
    return `${this.keyPrefix}${serviceId}`;
  }

  /** `redis key <key>`. */
  describe(serviceId: string): string {
    return `redis key ${this.keyFor(serviceId)}`;
  }

  /** `GET`; a Buffer reply (a client set to return buffers) is read as UTF-8. */
  async read(serviceId: string): Promise<string | null> {
    const value = await this.#client.get(this.keyFor(serviceId));
    if (value === null || value === undefined) return null;
    if (typeof value === 'string') return value;
    if (Buffer.isBuffer(value)) return value.toString('utf8');
    throw new TypeError(`GET answered a ${typeof value}, not a string`);
  }

  /** `SET`. */
  async write(serviceId: string, document: string): Promise<void> {
    await this.#client.set(this.keyFor(serviceId), document);
  }
}
