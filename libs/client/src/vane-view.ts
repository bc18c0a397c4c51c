/**
 * Reads fixed to one revision: the {@link VaneView} reader (its reads
 * are the client's, from `StateReader`). A view is the third of the
 * client's three words: the service serves a snapshot, the client derives
 * its state from it, a unit of work reads a view of one state.
 *
 * @packageDocumentation
 */
import type { KeyType } from '@vane/client-core';
import type { RevisionPin } from './store/revision-pins.js';
import type { ConfigValue } from '@vane/client-core';
import type { ServiceState } from './store/service-state.js';
import { StateReader, type ReadSource, type SecretReadTarget } from './state-reader.js';
import type { VaneReader } from './vane-reader.js';

/**
 * A request's view: a reader fixed to one revision, the state the client
 * served when it was taken (`client.view()`); every read answers from that
 * state, whatever lands later.
 * Same reads as the client, same rules (a public key or a `frontend`
 * service is refused every secret read).
 *
 * It holds its revision until {@link VaneView.release}: while held, a
 * file secret's path ({@link VaneView.secretFile}) names a file of that
 * version, whose content never changes. Once the revision is replaced, it is
 * held at most `pinMaxAgeMs` (client option) longer; after that, or after
 * `release()`, file paths are `null`. Every other read keeps answering from
 * the revision as long as the object lives.
 *
 * @example
 * ```ts
 * const view = vane.view();
 * try {
 *   if (view.flag('new-pricing')) price *= 1 - view.config('pricing.discount', 0);
 * } finally {
 *   view.release();
 * }
 * ```
 */
export interface VaneView extends VaneReader {
  /** The revision every read of this view answers from. */
  readonly revision: number;
  /** Every config of the revision, as an immutable map. */
  configs(): ReadonlyMap<string, ConfigValue>;
  /**
   * Runs `fn` with every read of the client that made this view pinned
   * to its revision: reads of `client` itself (and of code that reads
   * through it, e.g. an OpenFeature provider) inside `fn`, and in whatever
   * `fn` starts or awaits, answer from this view. `fn`'s return value
   * (a promise included) is returned as is; this does not release the
   * view. After release, or once the revision is let go, reads inside
   * `fn` are live.
   */
  run<T>(fn: () => T): T;
  /**
   * Lets go of the revision (idempotent): its file secrets' version files are
   * removed once nothing else holds it. Reads other than file paths keep answering.
   */
  release(): void;
  /**
   * Whether {@link VaneView.release} lets go of anything: true for every
   * view `client.view()` returns. False only for the view the
   * framework adapters share among the requests of a revision without file
   * secrets, which nothing has to release (see `pinMaxAgeMs`).
   */
  readonly held: boolean;
}

/** What a {@link PinnedView} needs from its client. @internal */
export interface ViewHost {
  readonly keyType: KeyType;
  /** Path of the version file of `key` in `state`, or `undefined`. */
  versionFilePath(state: ServiceState, key: string): string | undefined;
  /** Runs `fn` in a scope pinned to `pin`. */
  run<T>(pin: RevisionPin, fn: () => T): T;
  /** Lets go of `pin`. */
  drop(pin: RevisionPin): void;
}

/**
 * Where a pinned view's reads answer from: one object per view (a
 * request takes one), its methods on the prototype, so a view costs two
 * small allocations.
 */
class PinnedSource implements ReadSource, SecretReadTarget {
  readonly keyType: KeyType;
  readonly state: ServiceState;
  readonly secretsAvailable: boolean;
  released = false;
  readonly #pin: RevisionPin;
  readonly #host: ViewHost;

  constructor(state: ServiceState, pin: RevisionPin, host: ViewHost) {
    this.keyType = host.keyType;
    this.state = state;
    this.secretsAvailable = pin.secretsAvailable;
    this.#pin = pin;
    this.#host = host;
  }

  readState(): ServiceState {
    return this.state;
  }

  /** This object: a view's secret reads answer from its own state. */
  secretTarget(): SecretReadTarget {
    return this;
  }

  /** The version file exists while the pin holds this state. */
  filePath(_target: SecretReadTarget, key: string): string | null {
    if (this.released || this.#pin.state !== this.state) return null;
    return this.#host.versionFilePath(this.state, key) ?? null;
  }
}

/** The {@link VaneView} the client hands out. @internal */
export class PinnedView extends StateReader implements VaneView {
  readonly held: boolean;
  readonly #pin: RevisionPin;
  readonly #host: ViewHost;
  readonly #source: PinnedSource;

  /** @param held - false for a call view shared by the calls of a revision (its release does nothing). */
  constructor(state: ServiceState, pin: RevisionPin, host: ViewHost, held = true) {
    const source = new PinnedSource(state, pin, host);
    super(source);
    this.held = held;
    this.#pin = pin;
    this.#host = host;
    this.#source = source;
  }

  run<T>(fn: () => T): T {
    return this.#host.run(this.#pin, fn);
  }

  release(): void {
    if (this.#source.released || !this.held) return;
    this.#source.released = true;
    this.#host.drop(this.#pin);
  }
}
