/**
 * Access control's memory kept in the store (PROTOCOL §10): console logouts
 * and wrong admin-token guesses, so every replica of a fleet and a restart
 * see them. Both are kept by hash only: the store holds no session id and no
 * client address.
 */
import { createHash } from 'node:crypto';
import type { ChangeLog } from '../domain/change-log.js';
import type { GuessLedger } from '../domain/failed-attempt-throttle.js';
import type { GuessRecord } from '../domain/model.js';
import type { Store } from '../domain/store.js';
import type { EndedSessions } from './console-sessions.js';

/** Wrong admin-token guesses per client address, in the store: one count for the fleet, kept across restarts. */
export class StoreGuessLedger implements GuessLedger {
  /**
   * @param store - holds the counts (as every replica applies them).
   * @param changes - where a count is committed; in the background, so a refusal is not slowed by the store.
   */
  constructor(
    private readonly store: Store,
    private readonly changes: Pick<ChangeLog, 'commitLater'>,
  ) {}

  get(address: string): Readonly<GuessRecord> | undefined {
    return this.store.wrongGuesses(addressHash(address));
  }

  set(address: string, guesses: GuessRecord, forgetBeforeMs: number): void {
    const hashed = addressHash(address);
    this.changes.commitLater({ slugs: [], run: () => this.store.recordWrongGuess(hashed, guesses, forgetBeforeMs) });
  }
}

/** Console logouts in the store, each until its session would have expired. */
export class StoreEndedSessions implements EndedSessions {
  /**
   * @param store - holds the logouts (as every replica applies them).
   * @param changes - where a logout is committed; the logout answers once it is durable.
   */
  constructor(
    private readonly store: Store,
    private readonly changes: Pick<ChangeLog, 'commit'>,
  ) {}

  has(idHash: string): boolean {
    return this.store.sessionEnded(idHash);
  }

  async end(idHash: string, expiresAtMs: number): Promise<void> {
    await this.changes.commit({ slugs: [], run: () => this.store.endSession(idHash, expiresAtMs) });
  }
}

/** The key a client address is counted under. */
function addressHash(address: string): string {
  return createHash('sha256').update(`vane admin-token guesses:${address}`).digest('base64url');
}
