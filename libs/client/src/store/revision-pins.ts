/**
 * Revisions held by pinned scopes and snapshots, and how long they may be held.
 *
 * @packageDocumentation
 */
import type { VaneLogger } from '../util/logger.js';
import type { Clock, TimerHandle, Timers } from '../util/timers.js';
import type { SnapshotState } from './snapshot-state.js';

/**
 * One revision as pinned scopes and snapshots hold it: the state they read,
 * shared by every holder of that revision (one object per revision, not per
 * scope), so a scope costs a count, never a copy.
 * @internal
 */
export class RevisionPin {
  /**
   * The state pinned reads answer from; `undefined` once the pin ended
   * (every holder let go, or it expired after the revision was replaced):
   * scopes then read live. Cleared, not kept, so a scope that never ends
   * does not keep the state in memory.
   */
  state: SnapshotState | undefined;
  /** Whether secrets may be read from this state (false for a last-known-good backup without them). */
  readonly secretsAvailable: boolean;
  /** Scopes and snapshots holding it. */
  holders = 0;
  /** When a newer revision replaced it, on the client's clock; `undefined` while it is served. */
  replacedAtMs: number | undefined;

  constructor(state: SnapshotState, secretsAvailable: boolean) {
    this.state = state;
    this.secretsAvailable = secretsAvailable;
  }
}

/** What {@link RevisionPins} needs from the client. @internal */
export interface RevisionPinsDeps {
  readonly clock: Clock;
  readonly timers: Timers;
  readonly logger: VaneLogger;
  /** How long a replaced revision may still be read by scopes holding it, in milliseconds (`Infinity`: no limit). */
  readonly maxAgeMs: number;
  /** Lets go of a replaced state's version files (its pin ended). */
  releaseFiles(state: SnapshotState): void;
}

/**
 * The pins of one client. The served revision has at most one pin, made by
 * the first scope that asks; when the store replaces that revision, the pin
 * is kept if anyone holds it (with its file secrets' version files), else
 * dropped. A kept pin ends when its last holder lets go, or `maxAgeMs` after
 * it was replaced, whichever comes first: then its state is dropped and its
 * version files removed. Only pins with holders are referenced here, so
 * memory held is bounded by the revisions replaced in the last `maxAgeMs`
 * that a scope still reads, and nothing outlives its scopes otherwise.
 * @internal
 */
export class RevisionPins {
  readonly #deps: RevisionPinsDeps;
  /** The pin of the served revision, once a scope asked for it. */
  #current: RevisionPin | undefined;
  /** Replaced revisions still held, oldest replacement first (a Set keeps insertion order). */
  readonly #replaced = new Set<RevisionPin>();
  #timer: TimerHandle | undefined;
  #timerAtMs = Infinity;
  #closed = false;
  /** Holders of every pin: while 0, no scope can be pinned, and reads need not look. */
  #holders = 0;

  constructor(deps: RevisionPinsDeps) {
    this.#deps = deps;
  }

  /** Holders of all pins together (0: no scope anywhere reads a pinned revision). */
  get holders(): number {
    return this.#holders;
  }

  /** Number of replaced revisions still held by scopes or snapshots (each keeps its state and version files). */
  get heldReplaced(): number {
    return this.#replaced.size;
  }

  /**
   * Holds the served revision: its pin, made on the first call for it.
   * @param secretsAvailable - asked only when the pin is made.
   */
  take(served: SnapshotState, secretsAvailable: () => boolean): RevisionPin {
    let pin = this.#current;
    if (pin === undefined || pin.state !== served) this.#current = pin = new RevisionPin(served, secretsAvailable());
    pin.holders++;
    this.#holders++;
    return pin;
  }

  /** Holds a pin again (a scope nested in one that holds it). */
  retake(pin: RevisionPin): void {
    pin.holders++;
    this.#holders++;
  }

  /**
   * Lets go of a pin taken by {@link RevisionPins.take} or {@link RevisionPins.retake}.
   * A pin nobody holds ends: scopes still running in it (a handler going on
   * after its response closed) read live, as everywhere nothing holds a revision.
   */
  drop(pin: RevisionPin): void {
    pin.holders--;
    this.#holders--;
    if (pin.holders > 0) return;
    if (pin.replacedAtMs !== undefined) this.#end(pin);
    else if (this.#current === pin) {
      this.#current = undefined;
      pin.state = undefined;
    }
  }

  /**
   * The store replaced `previous`: returns true when a scope still holds it
   * (its version files then stay until its pin ends).
   */
  replaced(previous: SnapshotState): boolean {
    const pin = this.#current;
    if (pin === undefined || pin.state !== previous) return false;
    this.#current = undefined;
    if (pin.holders <= 0 || this.#closed || this.#deps.maxAgeMs <= 0) {
      pin.state = undefined;
      return false;
    }
    pin.replacedAtMs = this.#deps.clock.now();
    this.#replaced.add(pin);
    this.#schedule();
    return true;
  }

  /** Ends every pin and stops the expiry timer. */
  close(): void {
    this.#closed = true;
    this.#clearTimer();
    for (const pin of this.#replaced) this.#end(pin);
    if (this.#current !== undefined) this.#current.state = undefined;
    this.#current = undefined;
  }

  #end(pin: RevisionPin): void {
    const state = pin.state;
    if (!this.#replaced.delete(pin) || state === undefined) return;
    pin.state = undefined;
    this.#deps.releaseFiles(state);
    if (this.#replaced.size === 0) this.#clearTimer();
  }

  /** Arms the timer for the oldest replacement's expiry, unless it is already armed for it. */
  #schedule(): void {
    const first = this.#replaced.values().next().value;
    if (first === undefined || !Number.isFinite(this.#deps.maxAgeMs)) return;
    const atMs = first.replacedAtMs! + this.#deps.maxAgeMs;
    if (this.#timer !== undefined && this.#timerAtMs <= atMs) return;
    this.#clearTimer();
    this.#timerAtMs = atMs;
    this.#timer = this.#deps.timers.setTimeout(() => this.#expire(), Math.max(0, atMs - this.#deps.clock.now()));
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) this.#deps.timers.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAtMs = Infinity;
  }

  /** Ends the pins replaced `maxAgeMs` ago or more: their scopes read live from now on. */
  #expire(): void {
    this.#timer = undefined;
    this.#timerAtMs = Infinity;
    const now = this.#deps.clock.now();
    for (const pin of this.#replaced) {
      if (pin.replacedAtMs! + this.#deps.maxAgeMs > now) break;
      const revision = pin.state?.snapshot.revision;
      const holders = pin.holders;
      this.#end(pin);
      this.#deps.logger.info?.(
        `revision ${revision} was still held by ${holders} pinned scope(s) ${this.#deps.maxAgeMs} ms after it was replaced (pinMaxAgeMs): they read live from now on`,
      );
    }
    this.#schedule();
  }
}
