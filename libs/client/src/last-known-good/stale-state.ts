/**
 * What a client serving its last-known-good backup tells about it.
 *
 * @packageDocumentation
 */
import type { VaneError } from '../errors.js';
import type { StaleStartReason } from './stale-start-reason.js';

/**
 * The client started from its last-known-good backup and has not heard from
 * the service since (`client.stale`, `client.status.stale`). `null` once a
 * sync succeeds.
 */
export interface StaleState {
  /** Why the service was not used at startup. */
  readonly reason: StaleStartReason;
  /** The error of the start (match on its `code`). */
  readonly error: VaneError;
  /** Revision of the backup being served. */
  readonly revision: number;
  /** When the backup was saved (its age is `now - savedAt`). */
  readonly savedAt: Date;
  /**
   * False when the backup holds no secrets (workload identity without
   * `encryptionKey`): secret reads throw `SecretsNotAvailableError` until
   * the first successful sync.
   */
  readonly secretsAvailable: boolean;
}
