/**
 * The `lastKnownGood` option of the client: its shape, defaults and checks.
 *
 * @packageDocumentation
 */
import { InvalidArgumentError } from '../errors.js';
import type { BackupIdentity } from './backup-document.js';
import { deriveBackupKey, MIN_ENCRYPTION_KEY_BYTES } from './backup-key.js';
import type { LastKnownGoodStore } from './last-known-good-store.js';

/**
 * Start from a last-known-good backup when the service cannot be reached.
 * Without this option the initial sync is blocking and a failure stops the
 * start (the specification's rule); with it, the client saves every snapshot
 * it applies to `store`, and a start that fails for a reason that says
 * nothing about the caller's rights (network, timeout, 5xx, 429, quarantine,
 * 402) serves the backup instead, reports itself `stale`, and swaps in the
 * service's snapshot as soon as it answers. 401 and 404 still fail the start.
 */
export interface LastKnownGoodOptions {
  /** Where the backup lives: `new FileBackupStore({ directory })`, `new RedisBackupStore({ client })`, or your own. */
  store: LastKnownGoodStore;
  /**
   * Key material for the backup's secrets (AES-256-GCM, key derived with
   * HKDF-SHA-256): at least 32 bytes of randomness, e.g. `openssl rand
   * -base64 32`. Not a password. Give the same one to every instance that
   * shares a backup.
   * @default derived from `apiKey`; with workload identity and no
   * `encryptionKey`, secrets are left out of the backup (reads of them throw
   * `SecretsNotAvailableError` until the first successful sync)
   */
  encryptionKey?: string | Uint8Array;
  /**
   * A backup saved longer ago than this is not used, in milliseconds. Set,
   * it also makes the client rewrite an unchanged snapshot once its saved
   * copy is half this old, so a quiet service keeps a usable backup.
   * @default no limit
   */
  maxAgeMs?: number;
  /**
   * How long the start tries the service before serving the backup, in
   * milliseconds. A failure that comes sooner (connection refused, 503)
   * serves it at once. The attempt goes on in the background, and its
   * snapshot replaces the backup when it arrives.
   * @default 5000
   */
  initTimeoutMs?: number;
}

/** {@link LastKnownGoodOptions} after defaults and checks. Internal. */
export interface ResolvedLastKnownGood {
  readonly store: LastKnownGoodStore;
  readonly identity: BackupIdentity;
  readonly maxAgeMs: number | undefined;
  readonly initTimeoutMs: number;
}

/** Default {@link LastKnownGoodOptions.initTimeoutMs}. */
export const DEFAULT_INIT_TIMEOUT_MS = 5_000;

/**
 * The identity of a service's backup: its base URL without a trailing
 * slash (`https://shop.vane.example`). A backup of another identity is
 * never served.
 */
export function backupServiceId(baseUrl: URL): string {
  return `${baseUrl.origin}${baseUrl.pathname.replace(/\/+$/, '')}`;
}

function optionalPositive(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    throw new InvalidArgumentError(`lastKnownGood.${name} must be a positive number of milliseconds`);
  return value;
}

function keyMaterialLength(value: unknown): number | undefined {
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (value instanceof Uint8Array) return value.byteLength;
  return undefined;
}

/**
 * Checks the option and derives the backup's key.
 *
 * @param apiKey - the static API key the client authenticates with, if any (never stored).
 * @throws InvalidArgumentError - naming the member at fault (never echoing key material).
 */
export function resolveLastKnownGood(
  options: LastKnownGoodOptions | undefined,
  baseUrl: URL,
  apiKey: string | undefined,
): ResolvedLastKnownGood | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null)
    throw new InvalidArgumentError('lastKnownGood must be an object such as { store: new FileBackupStore(…) }');
  const store = options.store as Partial<LastKnownGoodStore> | undefined;
  if (
    typeof store !== 'object' ||
    store === null ||
    typeof store.read !== 'function' ||
    typeof store.write !== 'function' ||
    typeof store.describe !== 'function'
  ) {
    throw new InvalidArgumentError(
      'lastKnownGood.store must have read, write and describe methods (FileBackupStore, RedisBackupStore, or your own)',
    );
  }
  const serviceId = backupServiceId(baseUrl);
  let key;
  if (options.encryptionKey !== undefined) {
    const length = keyMaterialLength(options.encryptionKey);
    if (length === undefined || length < MIN_ENCRYPTION_KEY_BYTES) {
      throw new InvalidArgumentError(
        `lastKnownGood.encryptionKey must be a string or bytes of at least ${MIN_ENCRYPTION_KEY_BYTES} bytes (e.g. openssl rand -base64 32)${length === undefined ? '' : `; got ${length}`}`,
      );
    }
    key = deriveBackupKey(options.encryptionKey, 'encryption-key', serviceId);
  } else if (apiKey !== undefined) {
    key = deriveBackupKey(apiKey, 'api-key', serviceId);
  }
  return {
    store: options.store,
    identity: { serviceId, key },
    maxAgeMs: optionalPositive('maxAgeMs', options.maxAgeMs),
    initTimeoutMs: optionalPositive('initTimeoutMs', options.initTimeoutMs) ?? DEFAULT_INIT_TIMEOUT_MS,
  };
}
