/**
 * The client's connection state: the facts the data sources report, and the
 * one place they are turned into the status the app reads.
 *
 * @packageDocumentation
 */
import type { StaleState } from '../last-known-good/stale-state.js';
import { ListenerSet } from '../store/listener-set.js';
import type { VaneLogger } from '../util/logger.js';

/**
 * Every sync mode, in order of precedence (the first that applies is the
 * mode): the one vocabulary of `client.status.mode`, Nest's health
 * indicator and the `vane.client.sync.mode` metric.
 */
export const SYNC_MODES = Object.freeze([
  'closed',
  'halted',
  'rate-limited',
  'quarantined',
  'stale',
  'stream',
  'polling',
] as const);

/**
 * How the client keeps its cache current:
 * - `stream`: the SSE stream is connected (the TTL poll runs too);
 * - `polling`: the stream is not connected (connecting, fallen back after
 *   errors, or disabled with `stream: false`); the TTL poll runs;
 * - `stale`: the client serves its last-known-good backup (it started while
 *   the service could not be reached) and retries until a sync succeeds;
 *   {@link VaneClientStatus.stale} says why and since when;
 * - `rate-limited` / `quarantined`: the service answered 429; nothing is
 *   requested until {@link VaneClientStatus.retryAt};
 * - `halted`: billing overdue (402): nothing runs, the last snapshot is served;
 * - `closed`.
 */
export type SyncMode = (typeof SYNC_MODES)[number];

/** The client's connection state, as `client.status` and `onStatusChange` give it. */
export interface VaneClientStatus {
  /** See {@link SyncMode}. */
  readonly mode: SyncMode;
  /** True while the stream is connected (false while rate-limited or quarantined). */
  readonly connected: boolean;
  /** True after a 402, until a sync succeeds again. */
  readonly billingOverdue: boolean;
  /**
   * Set only in modes `rate-limited` and `quarantined`: when the client asks
   * again (the service's `Retry-After` or quarantine end, capped by `maxRetryAfterMs`).
   */
  readonly retryAt?: Date;
  /**
   * Set only while the client serves its last-known-good backup (it started
   * while the service could not be reached): why, since which save, and
   * whether secrets are in it. Absent once a sync succeeds.
   */
  readonly stale?: StaleState;
}

/** Listener given to `client.onStatusChange`. Exceptions it throws are logged, never propagated. */
export type StatusListener = (status: VaneClientStatus) => void;

/** A wait the service asked for with a 429. */
export interface ServiceWait {
  /** `rate-limited` (429 `rate_limited`) or `quarantined` (429 `quarantined`). */
  readonly reason: 'rate-limited' | 'quarantined';
  /** When the client asks again, in milliseconds since the epoch. */
  readonly untilMs: number;
}

/** What the status is computed from. */
export interface StatusFacts {
  /** The stream is open (or has not yet failed `streamErrorThreshold` times in a row). */
  readonly connected: boolean;
  /** A 402 halted background work. */
  readonly billingOverdue: boolean;
  /** The service asked the client to wait. */
  readonly wait: ServiceWait | undefined;
  /** `close()` was called. */
  readonly closed: boolean;
  /** The client serves its last-known-good backup. */
  readonly stale: StaleState | undefined;
}

/**
 * Holds the status facts, computes {@link VaneClientStatus} from them in one
 * place, and tells the listeners when it really changed.
 */
export class ClientStatus {
  #facts: StatusFacts = { connected: false, billingOverdue: false, wait: undefined, closed: false, stale: undefined };
  #status: VaneClientStatus = compute(this.#facts);
  /** Listeners of status changes. */
  readonly listeners: ListenerSet<VaneClientStatus>;

  /** @param logger - where failing listeners are reported. */
  constructor(logger: VaneLogger) {
    this.listeners = new ListenerSet(logger, () => 'status listener threw');
  }

  /** The facts as last reported. */
  get facts(): StatusFacts {
    return this.#facts;
  }

  /** The current status (the same object until it changes). */
  get current(): VaneClientStatus {
    return this.#status;
  }

  /** Records new facts; listeners are called when the status changed. A closed status never changes again. */
  update(change: Partial<StatusFacts>): void {
    if (this.#facts.closed) return;
    this.#facts = { ...this.#facts, ...change };
    const next = compute(this.#facts);
    const before = this.#status;
    if (
      next.mode === before.mode &&
      next.connected === before.connected &&
      next.billingOverdue === before.billingOverdue &&
      next.retryAt?.getTime() === before.retryAt?.getTime() &&
      next.stale === before.stale
    )
      return;
    this.#status = next;
    this.listeners.emit(next);
  }
}

function compute(facts: StatusFacts): VaneClientStatus {
  const connected = facts.connected && !facts.closed && !facts.billingOverdue && facts.wait === undefined;
  const base = {
    connected,
    billingOverdue: facts.billingOverdue,
    ...(facts.stale !== undefined && !facts.closed ? { stale: facts.stale } : {}),
  };
  if (facts.closed) return Object.freeze({ mode: 'closed', ...base });
  if (facts.billingOverdue) return Object.freeze({ mode: 'halted', ...base });
  if (facts.wait !== undefined)
    return Object.freeze({ mode: facts.wait.reason, ...base, retryAt: new Date(facts.wait.untilMs) });
  if (base.stale !== undefined) return Object.freeze({ mode: 'stale', ...base });
  return Object.freeze({ mode: connected ? 'stream' : 'polling', ...base });
}
