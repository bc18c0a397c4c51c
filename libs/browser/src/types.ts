/**
 * What a client reports: its status, and the updates its listeners hear.
 *
 * @packageDocumentation
 */
import type { VaneBrowserClient } from './vane-browser-client.js';
import type { VaneServiceError } from './errors.js';

/** What the client is doing now. */
export type VaneMode = 'idle' | 'stream' | 'polling' | 'paused' | 'closed';

/** The client's state, replaced as a whole on every change. */
export interface VaneStatus {
  /** True once the client holds values (synced, bootstrapped or from storage). */
  readonly ready: boolean;
  /** True while a stream is open (and through a `goaway`'s reconnect). */
  readonly connected: boolean;
  /** True when the values may be behind: from storage and not confirmed, or the service unreachable since the last success. */
  readonly stale: boolean;
  /** The revision held (0 before any). */
  readonly revision: number;
  /** What the client is doing. */
  readonly mode: VaneMode;
  /** The last failure, until the next success. */
  readonly error?: VaneServiceError | undefined;
}

/** One change of the client: a revision, A/B answers, or the status. */
export interface VaneUpdate {
  /** The revision held after the change. */
  readonly revision: number;
  /** Config keys whose value changed (set, changed or deleted). */
  readonly configs: readonly string[];
  /** Flag keys whose `is_active` changed (or that appeared or went). */
  readonly flags: readonly string[];
  /** True when A/B answers for the user changed. */
  readonly ab: boolean;
  /** True when `status` changed. */
  readonly status: boolean;
}

/** A listener of `VaneBrowserClient.subscribe`. */
export type VaneListener = (update: VaneUpdate) => void;

/** The reads and subscriptions of a client (what a component or a store reads). */
export type VaneState = Pick<
  VaneBrowserClient,
  'status' | 'version' | 'config' | 'flag' | 'keys' | 'subscribe' | 'onFlag' | 'onConfig'
>;
