import type { SecretType } from './values.js';

/**
 * The answer to a secret write (`PUT /v1/secrets/{key}`, PROTOCOL §9): what
 * `client.setSecret` resolves to, and what the server's write returns with
 * the revision it made.
 */
export interface SecretWriteResult {
  /** The secret's key. */
  readonly key: string;
  /** Its type. */
  readonly type: SecretType;
  /** The version the write created (1-based). */
  readonly version: number;
}
