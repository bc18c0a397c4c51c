/**
 * Why a stored backup cannot be served.
 *
 * @packageDocumentation
 */

/**
 * A backup was found but cannot be served (unparseable, tampered, foreign,
 * expired, sealed with another key…). Internal: the client logs it as a
 * warning naming the store and throws the error of the initial sync instead.
 * Its message never holds a secret or a key.
 */
export class UnusableBackupError extends Error {
  /** @param reason - what is wrong with the backup, for people. */
  constructor(reason: string) {
    super(reason);
    this.name = 'UnusableBackupError';
  }
}
