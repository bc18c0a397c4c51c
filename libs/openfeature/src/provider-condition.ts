/**
 * The provider's condition as OpenFeature sees it, derived from the client's
 * status and its session: which event to emit on each change. Pure.
 *
 * @packageDocumentation
 */
import type { VaneClientStatus } from '@vane/client';

/** `ready`: values are current; `stale`: served from a cache that may lag; `error`: the session expired. */
export type Condition = 'ready' | 'stale' | 'error';

/** Modes in which the client asks the service for nothing: the cache can only age. */
const WAITING: ReadonlySet<VaneClientStatus['mode']> = new Set(['halted', 'rate-limited', 'quarantined']);

/** Tracks what the client reports and answers the condition after each report. */
export class ProviderCondition {
  #stale: boolean;
  #sessionExpired = false;
  #last: VaneClientStatus;

  /** Starts from the status of the client being adopted (halted or told to wait means stale from the start). */
  constructor(initial: VaneClientStatus) {
    this.#last = initial;
    this.#stale = initial.billingOverdue || WAITING.has(initial.mode);
  }

  /** The condition now. */
  get current(): Condition {
    return this.#sessionExpired ? 'error' : this.#stale ? 'stale' : 'ready';
  }

  /**
   * A status change of the client. Stale while billing is overdue or the
   * service made the client wait (429), and once a connected stream has
   * fallen back to polling; ready again when the stream reconnects, or when
   * polling resumes after a halt or a wait. Before the stream's first
   * connection the client polls too, which is not staleness.
   */
  status(next: VaneClientStatus): Condition {
    const prev = this.#last;
    this.#last = next;
    if (next.mode === 'closed') return this.current;
    if (next.billingOverdue || WAITING.has(next.mode)) this.#stale = true;
    else if (next.connected) this.#stale = false;
    else if (prev.connected) this.#stale = true;
    else if (WAITING.has(prev.mode) || prev.billingOverdue) this.#stale = false;
    return this.current;
  }

  /** The session expired (true) or was renewed (false). */
  session(expired: boolean): Condition {
    this.#sessionExpired = expired;
    return this.current;
  }
}
