/**
 * Revisions held by pinned scopes and views, and how long they may be held.
 *
 * @packageDocumentation
 */
import type { VaneLogger } from '../util/logger.js';
import type { Clock, TimerHandle, Timers } from '../util/timers.js';
import type { VaneView } from '../vane-view.js';
import type { ServiceState } from './service-state.js';

/**
 * One revision as pinned scopes and views hold it: the state they read,
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
  state: ServiceState | undefined;
  /** Whether secrets may be read from this state (false for a last-known-good backup without them). */
  readonly secretsAvailable: boolean;
  /** Scopes and views holding it. */
  holders = 0;
  /** When a newer revision replaced it, on the client's clock; `undefined` while it is served. */
  replacedAtMs: number | undefined;
  /**
   * Whether calls were handed this pin without being counted (see
   * {@link RevisionPins.share}): its state is then kept until
   * `maxAgeMs` after its replacement, for as long as anything reaches it.
   */
  shared = false;
  /** Whether its state has file secrets, once {@link RevisionPins.share} asked (such a pin is never shared). */
  hasFiles: boolean | undefined;
  /** The view every uncounted call of this revision reads (made by the client on the first). */
  callView: VaneView | undefined;

  constructor(state: ServiceState, secretsAvailable: boolean) {
    this.state = state;
    this.secretsAvailable = secretsAvailable;
  }
}

/** Shared replacements listed before {@link RevisionPins} first looks at every one of them. */
const FULL_PRUNE_MIN = 64;

/** A replaced pin that uncounted calls may still read: held weakly, its state cleared `maxAgeMs` after `replacedAtMs`. */
interface SharedReplacement {
  readonly pin: WeakRef<RevisionPin>;
  readonly replacedAtMs: number;
}

/** What {@link RevisionPins} needs from the client. @internal */
export interface RevisionPinsDeps {
  readonly clock: Clock;
  readonly timers: Timers;
  readonly logger: VaneLogger;
  /** How long a replaced revision may still be read by scopes holding it, in milliseconds (`Infinity`: no limit). */
  readonly maxAgeMs: number;
  /** Lets go of a replaced state's version files (its pin ended). */
  releaseFiles(state: ServiceState): void;
  /** Whether a state has version files to let go of (file secrets): such a revision is never shared uncounted. */
  hasFiles(state: ServiceState): boolean;
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
 *
 * A revision without file secrets has nothing to remove when its last
 * reader ends, only memory: framework calls (a request, a message) take
 * its pin through {@link RevisionPins.share}, uncounted, and never let go.
 * Once replaced, such a pin is referenced here only weakly: the garbage
 * collector reclaims it with the last call that reaches it, and
 * `maxAgeMs` after its replacement its state is cleared all the same (a
 * call that never ends then reads live). That spares every request the
 * wait on its response's end that a count needs.
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
  /** Holders of every pin: while 0 (and none was shared), no scope can be pinned, and reads need not look. */
  #holders = 0;
  /** Replaced pins uncounted calls may still read, oldest replacement first. */
  #shared: SharedReplacement[] = [];
  /** Length of {@link RevisionPins.#shared} at which the next prune looks at every entry. */
  #fullPruneAt = FULL_PRUNE_MIN;
  /** Whether any pin was ever shared: then any code may run in a pinned scope. */
  #everShared = false;

  constructor(deps: RevisionPinsDeps) {
    this.#deps = deps;
  }

  /** Holders of all pins together (0: no scope anywhere reads a pinned revision). */
  get holders(): number {
    return this.#holders;
  }

  /** Whether a pin was ever handed out uncounted ({@link RevisionPins.share}): scopes may exist though `holders` is 0. */
  get everShared(): boolean {
    return this.#everShared;
  }

  /**
   * Whether a scope may read a replaced revision: while false, every
   * pinned read answers what the served revision does, and need not look
   * up its scope.
   */
  get mayHoldReplaced(): boolean {
    return this.#replaced.size !== 0 || this.#shared.length !== 0;
  }

  /**
   * Number of replaced revisions still held by scopes or views (each
   * keeps its state, and its version files when counted). An uncounted
   * one counts until the garbage collector reclaimed it or `maxAgeMs` passed.
   */
  get heldReplaced(): number {
    let held = this.#replaced.size;
    for (const { pin } of this.#shared) if (pin.deref()?.state !== undefined) held++;
    return held;
  }

  /**
   * Holds the served revision: its pin, made on the first call for it.
   * @param secretsAvailable - asked only when the pin is made.
   */
  take(served: ServiceState, secretsAvailable: () => boolean): RevisionPin {
    let pin = this.#current;
    if (pin === undefined || pin.state !== served) this.#current = pin = new RevisionPin(served, secretsAvailable());
    pin.holders++;
    this.#holders++;
    return pin;
  }

  /**
   * The served revision's pin for a call that will not let go of it, or
   * `undefined` when the revision has file secrets (their version files
   * must be removed when the last reader ends: the call takes a counted
   * pin with {@link RevisionPins.take}).
   */
  share(served: ServiceState, secretsAvailable: () => boolean): RevisionPin | undefined {
    let pin = this.#current;
    if (pin === undefined || pin.state !== served) this.#current = pin = new RevisionPin(served, secretsAvailable());
    if (!pin.shared) {
      if ((pin.hasFiles ??= this.#deps.hasFiles(served)) === true) return undefined;
      pin.shared = true;
      this.#everShared = true;
    }
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
    else if (this.#current === pin && !pin.shared) {
      // (A shared pin stays: uncounted calls read it.)
      this.#current = undefined;
      pin.state = undefined;
    }
  }

  /**
   * The store replaced `previous`: returns true when a scope still holds it
   * (its version files then stay until its pin ends).
   */
  replaced(previous: ServiceState): boolean {
    this.#pruneShared();
    const pin = this.#current;
    if (pin === undefined || pin.state !== previous) return false;
    this.#current = undefined;
    if ((pin.holders <= 0 && !pin.shared) || this.#closed || this.#deps.maxAgeMs <= 0) {
      pin.state = undefined;
      return false;
    }
    pin.replacedAtMs = this.#deps.clock.now();
    if (pin.holders <= 0) {
      this.#keepShared(pin);
      return false;
    }
    this.#replaced.add(pin);
    this.#schedule();
    // (A shared pin has no file secrets: nothing to keep on disk for it.)
    return !pin.shared;
  }

  /** Ends every pin and stops the expiry timer. */
  close(): void {
    this.#closed = true;
    this.#clearTimer();
    for (const pin of this.#replaced) this.#end(pin, true);
    for (const { pin } of this.#shared) this.#clearShared(pin.deref());
    this.#shared = [];
    if (this.#current !== undefined) this.#clearShared(this.#current);
    this.#current = undefined;
  }

  /**
   * A replaced pin's last counted holder let go, or its time is up
   * (`expired`): its version files go; its state goes too, unless uncounted
   * calls may still read it (then it is kept weakly until `maxAgeMs`).
   */
  #end(pin: RevisionPin, expired = false): void {
    const state = pin.state;
    if (!this.#replaced.delete(pin) || state === undefined) return;
    if (pin.shared && !expired) this.#keepShared(pin);
    else {
      this.#clearShared(pin);
      if (!pin.shared) this.#deps.releaseFiles(state);
    }
    if (!this.mayHoldReplaced) this.#clearTimer();
  }

  /** Keeps a replaced shared pin weakly until `maxAgeMs` after its replacement (in order of replacement). */
  #keepShared(pin: RevisionPin): void {
    const entry = { pin: new WeakRef(pin), replacedAtMs: pin.replacedAtMs! };
    let at = this.#shared.length;
    while (at > 0 && this.#shared[at - 1]!.replacedAtMs > entry.replacedAtMs) at--;
    this.#shared.splice(at, 0, entry);
    this.#schedule();
  }

  /** Lets go of a pin's state and of the view its calls shared (they keep their own reference to it). */
  #clearShared(pin: RevisionPin | undefined): void {
    if (pin === undefined) return;
    pin.state = undefined;
    pin.callView = undefined;
  }

  /**
   * Forgets shared replacements the garbage collector already reclaimed:
   * the oldest ones at every replacement, and all of them whenever the list
   * has doubled since the last full pass (a call that never ends keeps the
   * oldest alive until `maxAgeMs`; the newer ones must not pile up behind it).
   */
  #pruneShared(): void {
    const before = this.#shared.length;
    if (before >= this.#fullPruneAt) {
      this.#shared = this.#shared.filter((entry) => entry.pin.deref() !== undefined);
      this.#fullPruneAt = Math.max(FULL_PRUNE_MIN, 2 * this.#shared.length);
    } else {
      let dead = 0;
      while (dead < before && this.#shared[dead]!.pin.deref() === undefined) dead++;
      if (dead > 0) this.#shared.splice(0, dead);
    }
    if (this.#shared.length < before && !this.mayHoldReplaced) this.#clearTimer();
  }

  /** Arms the timer for the oldest replacement's expiry, unless it is already armed for it. */
  #schedule(): void {
    const counted = this.#replaced.values().next().value?.replacedAtMs ?? Infinity;
    const shared = this.#shared[0]?.replacedAtMs ?? Infinity;
    const first = Math.min(counted, shared);
    if (first === Infinity || !Number.isFinite(this.#deps.maxAgeMs)) return;
    const atMs = first + this.#deps.maxAgeMs;
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
      this.#end(pin, true);
      this.#deps.logger.info?.(
        `revision ${revision} was still held by ${holders} pinned scope(s) ${this.#deps.maxAgeMs} ms after it was replaced (pinMaxAgeMs): they read live from now on`,
      );
    }
    // Uncounted calls cannot be told: a call still running on such a revision reads live from now on.
    let ended = 0;
    while (ended < this.#shared.length && this.#shared[ended]!.replacedAtMs + this.#deps.maxAgeMs <= now)
      this.#clearShared(this.#shared[ended++]!.pin.deref());
    if (ended > 0) this.#shared.splice(0, ended);
    this.#schedule();
  }
}
