/**
 * Reads fixed to one revision: the {@link VaneSnapshot} reader (its reads
 * are the client's, from `SnapshotReader`).
 *
 * @packageDocumentation
 */
import type { KeyType } from '@vane/client-core';
import type { RevisionPin } from './store/revision-pins.js';
import type { ConfigValue } from '@vane/client-core';
import type { SnapshotState } from './store/snapshot-state.js';
import { SnapshotReader, type ReadSource, type SecretReadTarget } from './snapshot-reader.js';
import type { VaneReader } from './vane-reader.js';

/**
 * A reader fixed to one revision: every read answers from the snapshot that
 * was served when it was taken (`client.snapshot()`), whatever lands later.
 * Same reads as the client, same rules (a public key or a `frontend`
 * service is refused every secret read).
 *
 * It holds its revision until {@link VaneSnapshot.release}: while held, a
 * file secret's path ({@link VaneSnapshot.secretFile}) names a file of that
 * version, whose content never changes. Once the revision is replaced, it is
 * held at most `pinMaxAgeMs` (client option) longer; after that, or after
 * `release()`, file paths are `null`. Every other read keeps answering from
 * the revision as long as the object lives.
 *
 * @example
 * ```ts
 * const snap = vane.snapshot();
 * try {
 *   if (snap.flag('new-pricing')) price *= 1 - snap.config('pricing.discount', 0);
 * } finally {
 *   snap.release();
 * }
 * ```
 */
export interface VaneSnapshot extends VaneReader {
  /** The revision every read of this snapshot answers from. */
  readonly revision: number;
  /** Every config of the revision, as an immutable map. */
  configs(): ReadonlyMap<string, ConfigValue>;
  /**
   * Runs `fn` with every read of the client that made this snapshot pinned
   * to its revision: reads of `client` itself (and of code that reads
   * through it, e.g. an OpenFeature provider) inside `fn`, and in whatever
   * `fn` starts or awaits, answer from this snapshot. `fn`'s return value
   * (a promise included) is returned as is; this does not release the
   * snapshot. After release, or once the revision is let go, reads inside
   * `fn` are live.
   */
  run<T>(fn: () => T): T;
  /**
   * Lets go of the revision (idempotent): its file secrets' version files are
   * removed once nothing else holds it. Reads other than file paths keep answering.
   */
  release(): void;
  /**
   * Whether {@link VaneSnapshot.release} lets go of anything: true for every
   * snapshot `client.snapshot()` returns. False only for the snapshot the
   * framework adapters share among the requests of a revision without file
   * secrets, which nothing has to release (see `pinMaxAgeMs`).
   */
  readonly held: boolean;
}

/** What a {@link PinnedSnapshot} needs from its client. @internal */
export interface SnapshotHost {
  readonly keyType: KeyType;
  /** Path of the version file of `key` in `state`, or `undefined`. */
  versionFilePath(state: SnapshotState, key: string): string | undefined;
  /** Runs `fn` in a scope pinned to `pin`. */
  run<T>(pin: RevisionPin, fn: () => T): T;
  /** Lets go of `pin`. */
  drop(pin: RevisionPin): void;
}

/**
 * Where a pinned snapshot's reads answer from: one object per snapshot (a
 * request takes one), its methods on the prototype, so a snapshot costs two
 * small allocations.
 */
class PinnedSource implements ReadSource, SecretReadTarget {
  readonly keyType: KeyType;
  readonly state: SnapshotState;
  readonly secretsAvailable: boolean;
  released = false;
  readonly #pin: RevisionPin;
  readonly #host: SnapshotHost;

  constructor(state: SnapshotState, pin: RevisionPin, host: SnapshotHost) {
    this.keyType = host.keyType;
    this.state = state;
    this.secretsAvailable = pin.secretsAvailable;
    this.#pin = pin;
    this.#host = host;
  }

  readState(): SnapshotState {
    return this.state;
  }

  /** This object: a snapshot's secret reads answer from its own state. */
  secretTarget(): SecretReadTarget {
    return this;
  }

  /** The version file exists while the pin holds this state. */
  filePath(_target: SecretReadTarget, key: string): string | null {
    if (this.released || this.#pin.state !== this.state) return null;
    return this.#host.versionFilePath(this.state, key) ?? null;
  }
}

/** The {@link VaneSnapshot} the client hands out. @internal */
export class PinnedSnapshot extends SnapshotReader implements VaneSnapshot {
  readonly held: boolean;
  readonly #pin: RevisionPin;
  readonly #host: SnapshotHost;
  readonly #source: PinnedSource;

  /** @param held - false for a call snapshot shared by the calls of a revision (its release does nothing). */
  constructor(state: SnapshotState, pin: RevisionPin, host: SnapshotHost, held = true) {
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
