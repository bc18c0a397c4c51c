/**
 * Which revision a client read answers from: the one its pinned scope holds,
 * else the one the store serves now.
 *
 * @packageDocumentation
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { KeyType } from '@vane/client-core';
import type { ReadSource, SecretReadTarget } from '../state-reader.js';
import type { VaneLogger } from '../util/logger.js';
import type { Clock, Timers } from '../util/timers.js';
import { PinnedView, type ViewHost, type VaneView } from '../vane-view.js';
import { RevisionPins, type RevisionPin } from './revision-pins.js';
import type { ServiceState } from './service-state.js';
import type { StateStore } from './state-store.js';

/** What a {@link ReadScope} needs from its client. @internal */
export interface ReadScopeDeps {
  readonly keyType: KeyType;
  readonly store: StateStore;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly logger: VaneLogger;
  /** How long a replaced revision may still be read by scopes holding it (`pinMaxAgeMs`). */
  readonly pinMaxAgeMs: number;
  /** False while the client serves a last-known-good backup without secrets. */
  secretsAvailable(): boolean;
}

/**
 * The client's read source: pinned scopes (`runPinned`, `view.run`)
 * carried by one `AsyncLocalStorage`, the pins they hold, and the store's
 * served state for every read outside them.
 * @internal
 */
export class ReadScope implements ReadSource {
  readonly keyType: KeyType;
  readonly #deps: ReadScopeDeps;
  readonly #store: StateStore;
  readonly #pins: RevisionPins;
  /** The pin of the scope code runs in: reads inside answer from its state. */
  readonly #scope = new AsyncLocalStorage<RevisionPin>();
  readonly #host: ViewHost;
  /** Asked when a revision's pin is made: one function for the client's life, not a closure per view. */
  readonly #secretsAvailable: () => boolean;

  constructor(deps: ReadScopeDeps) {
    this.#deps = deps;
    this.keyType = deps.keyType;
    this.#store = deps.store;
    this.#pins = new RevisionPins({
      clock: deps.clock,
      timers: deps.timers,
      logger: deps.logger,
      maxAgeMs: deps.pinMaxAgeMs,
      releaseFiles: (state) => deps.store.releaseFiles(state),
      hasFiles: (state) => deps.store.hasFiles(state),
    });
    deps.store.retainReplaced((previous) => this.#pins.replaced(previous));
    this.#secretsAvailable = () => deps.secretsAvailable();
    this.#host = {
      keyType: deps.keyType,
      versionFilePath: (state, key) => deps.store.versionFilePath(state, key),
      run: (pin, fn) => this.#scope.run(pin, fn),
      drop: (pin) => this.#pins.drop(pin),
    };
  }

  /** The state a read answers from: the scope's pinned revision, else the one served now. */
  readState(): ServiceState {
    // While no scope can hold a replaced revision, a pinned read answers what a live one does:
    // the async context need not be looked up.
    if (!this.#pins.mayHoldReplaced) return this.#store.state;
    return this.#scope.getStore()?.state ?? this.#store.state;
  }

  secretTarget(): SecretReadTarget {
    const pin = this.#pin();
    if (pin !== undefined) return { state: pin.state!, secretsAvailable: pin.secretsAvailable };
    return { state: this.#store.state, secretsAvailable: this.#deps.secretsAvailable() };
  }

  /** Live: the key's stable path. Pinned: the version file of the pinned revision. */
  filePath(target: SecretReadTarget, key: string): string | null {
    const path =
      this.#pin()?.state === target.state ? this.#store.versionFilePath(target.state, key) : this.#store.filePath(key);
    return path ?? null;
  }

  /** A view of the revision read now (inside a pinned scope, the scope's, held once more). */
  view(): VaneView {
    const outer = this.#pin();
    let pin: RevisionPin;
    if (outer !== undefined) {
      this.#pins.retake(outer);
      pin = outer;
    } else {
      pin = this.#pins.take(this.#store.state, this.#secretsAvailable);
    }
    return new PinnedView(pin.state!, pin, this.#host);
  }

  /**
   * The view a framework call (a request, a message) reads: inside a
   * pinned scope, or on a revision with file secrets, a view of its own
   * as {@link ReadScope.view} makes, which the call releases when it
   * ends; otherwise the one view every such call of the revision
   * shares, uncounted (`held: false`), which nothing needs to release.
   */
  callView(): VaneView {
    if (this.#pin() !== undefined) return this.view();
    const state = this.#store.state;
    const pin = this.#pins.share(state, this.#secretsAvailable);
    if (pin === undefined) return this.view();
    return (pin.callView ??= new PinnedView(state, pin, this.#host, false));
  }

  /** Runs `fn` pinned to the revision read now; nested calls keep the outer revision. */
  runPinned<T>(fn: () => T): T {
    if (this.#pin() !== undefined) return fn();
    const view = this.view();
    let result: T;
    try {
      result = view.run(fn);
    } catch (err) {
      view.release();
      throw err;
    }
    if (result instanceof Promise) return result.finally(() => view.release()) as T;
    view.release();
    return result;
  }

  /** Runs `fn` outside any pinned scope (what it installs, and its listeners, are live). */
  live<T>(fn: () => T): T {
    return this.#scope.exit(fn);
  }

  /** Replaced revisions still held, and file-secret versions on disk. */
  get stats(): { readonly heldRevisions: number; readonly fileVersions: number } {
    return { heldRevisions: this.#pins.heldReplaced, fileVersions: this.#store.heldFileVersions };
  }

  /** Ends every pin: scopes still running read live. */
  close(): void {
    this.#pins.close();
  }

  /** The pin of the scope this code runs in, while it still holds a state. */
  #pin(): RevisionPin | undefined {
    if (this.#pins.holders === 0 && !this.#pins.everShared) return undefined;
    const pin = this.#scope.getStore();
    return pin?.state === undefined ? undefined : pin;
  }
}
