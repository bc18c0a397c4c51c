/**
 * The seam between the client and its opt-in plug-ins (`@vane/browser/storage`,
 * `/share`, `/ab`): a plug-in is a function the client calls once, from its
 * constructor, with a {@link VaneHost}; what it returns is what the client
 * calls back. A page that imports no plug-in bundles none of their code.
 * `@vane/browser/plugin`: types only, for a plug-in's author; an app passes
 * plug-ins and never writes these.
 *
 * @packageDocumentation
 * @module @vane/browser/plugin
 */
import type { ReadBootstrapState, Snapshot } from '@vane/client-core';
import type { VaneBrowserOptions, VaneBrowserSettings } from './options.js';
import type { VaneStatus } from './types.js';
import type { VaneBrowserClient } from './vane-browser-client.js';

export type { VaneBrowserSettings } from './options.js';

/**
 * What a plug-in may see and do of the client it was given to. Made by the
 * client for its plug-ins only; not a public API of the client itself.
 */
export interface VaneHost {
  /** The client. */
  readonly client: VaneBrowserClient;
  /** The client's options, as given (`apiKey`, `user` unchecked, `bootstrap` with its state checked). */
  readonly options: VaneBrowserOptions;
  /** The service's base URL, parsed. */
  readonly base: URL;
  /** The durations and thresholds, defaults applied. */
  readonly settings: VaneBrowserSettings;
  /** The snapshot held, if any. */
  snap(): Snapshot | undefined;
  /** The ETag of the snapshot held, if known. */
  etag(): string | null;
  /** True once `start()` was called. */
  started(): boolean;
  /** Takes a snapshot (from a holder of a shared stream): the listeners hear of it. */
  install(snapshot: Snapshot, etag: string | null, stale: boolean): void;
  /** Changes the status (an update when anything changed). */
  set(change: Partial<VaneStatus>): void;
  /** Tells the listeners that A/B answers changed. */
  abChanged(): void;
  /** Goes live on its own: a sync unless fresh values are held, then the stream or polls. */
  begin(): Promise<void>;
  /** A conditional sync, in order with the others. */
  sync(): Promise<void>;
  /** A POST of `body` to `/v1/{path}`, bounded by `timeoutMs`; a `VaneServiceError` for an answer it cannot use. */
  post(path: string, body: unknown): Promise<Response>;
  /** Records a background failure in the status. */
  failed(error: unknown): void;
  /**
   * Set by the shared-stream plug-in: true while this client follows
   * another's stream (the holder keeps the last-known-good copy, so the
   * followers do not write it again). Absent without that plug-in.
   */
  following?: () => boolean;
}

/** A plug-in: called once by the client's constructor with its host. */
export type VanePlugin<T> = (host: VaneHost) => T;

/** What the client asks of the last-known-good plug-in (`@vane/browser/storage`). */
export interface VaneStore {
  /** The copy kept from an earlier page, if any and readable. */
  load(): ReadBootstrapState | undefined;
}

/** What the client asks of the shared-stream plug-in (`@vane/browser/share`). */
export interface VaneSharing {
  /** Joins the clients sharing a stream; settles as `start()` does. */
  start(): Promise<void>;
  /** The page was hidden for long: lets the stream go to another client. */
  pause(): void;
  /** The page is visible again: joins again (the holder's state is the catch-up). */
  resume(): void;
  /** Leaves for good. */
  close(): void;
}

/**
 * What the A/B plug-in (`@vane/browser/ab`) gives the client: its `abFlag`,
 * `evaluateAb` and `setUser` (see `VaneBrowserClient`), which replace the
 * ones that throw without it. It stops its own timer once it hears that the
 * client closed.
 */
export type VaneAb = Pick<VaneBrowserClient, 'abFlag' | 'evaluateAb' | 'setUser'>;
