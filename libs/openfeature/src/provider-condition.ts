/**
 * The provider's condition as OpenFeature sees it, derived from the client's
 * status and its session: which event to emit on each change. Pure.
 *
 * @packageDocumentation
 */
import type { VaneClientStatus } from '@vane/client';

/** `ready`: values are current; `stale`: served from a cache that may lag; `error`: the session expired. */
export type Condition = 'ready' | 'stale' | 'error';

/** Tracks what the client reports and answers the condition after each report. */
export class ProviderCondition {
  #stale = false;
  #sessionExpired = false;
  #last: VaneClientStatus | undefined;

  /** Starts from the status of the client being adopted (billing overdue means stale from the start). */
  constructor(initial: VaneClientStatus) {
    this.#last = initial;
    this.#stale = initial.billingOverdue;
  }

  /** The condition now. */
  get current(): Condition {
    return this.#sessionExpired ? 'error' : this.#stale ? 'stale' : 'ready';
  }

  /**
   * A status change of the client. Stale while billing is overdue, or once a
   * connected stream has fallen back to polling; ready again when the stream
   * reconnects or a sync succeeds after the billing halt. Before the stream's
   * first connection the client polls too, which is not staleness.
   */
  status(next: VaneClientStatus): Condition {
    const prev = this.#last;
    this.#last = next;
    if (next.mode === 'closed') return this.current;
    if (next.billingOverdue) this.#stale = true;
    else if (next.connected) this.#stale = false;
    else if (prev?.connected === true) this.#stale = true;
    else if (prev?.billingOverdue === true) this.#stale = false;
    return this.current;
  }

  /** The session expired (true) or was renewed (false). */
  session(expired: boolean): Condition {
    this.#sessionExpired = expired;
    return this.current;
  }
}
