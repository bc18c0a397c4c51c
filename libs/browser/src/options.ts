/**
 * The options of a {@link VaneBrowserClient} and their defaults.
 *
 * @packageDocumentation
 */
import type { AbContext, VaneBootstrap } from '@vane/client-core';
import type { VaneShare } from './share.js';

/** The page's user, for A/B answers: a user id and string attributes (`null`/`undefined` are unset). */
export type VaneUser = AbContext;

/** Where the last-known-good copy is kept: `localStorage`, or anything with the same three methods. */
export interface VaneStorage {
  /** Reads an entry; `null` when absent. */
  getItem(key: string): string | null;
  /** Writes an entry. */
  setItem(key: string, value: string): void;
  /** Removes an entry. */
  removeItem(key: string): void;
}

/** What the client needs of `document` to pause while the page is hidden. */
export interface VisibilitySource {
  /** `visible` or `hidden`. */
  readonly visibilityState: string;
  /** Registers the `visibilitychange` listener. */
  addEventListener(type: 'visibilitychange', listener: () => void): void;
  /** Removes it. */
  removeEventListener(type: 'visibilitychange', listener: () => void): void;
}

/** Options of a {@link VaneBrowserClient}. Durations are in milliseconds. */
export interface VaneBrowserOptions {
  /** The service's base URL: `https://{slug}.{domain}`, or `http://{slug}.localhost:{port}` locally. */
  readonly baseUrl: string;
  /** A public key (`svp_…`). A secret key (`svs_…`) is refused: it must never reach a browser. */
  readonly apiKey: string;
  /** A server-produced state to start from, with no request before the first paint. @default none */
  readonly bootstrap?: VaneBootstrap;
  /** The page's user, for A/B answers. @default none (`abFlag` answers its default) */
  readonly user?: VaneUser;
  /**
   * Keep the last values in storage, so that a reload while the service is
   * down shows them (marked `stale`). `true` uses `globalThis.localStorage`.
   * Only a public key's data is ever written. @default false
   */
  readonly lastKnownGood?: boolean | VaneStorage;
  /** The storage entry's name. @default `vane:` followed by the base URL */
  readonly storageKey?: string;
  /** Live changes over the stream; `false` polls every `ttlMs` instead. @default true */
  readonly stream?: boolean;
  /**
   * Share one stream with the other clients of the same base URL and key
   * in this page and the other tabs of its origin: one holds the stream
   * (elected with `navigator.locks`) and hands what it receives to the
   * others over a `BroadcastChannel`. `true` uses the platform's, where both
   * exist (elsewhere each client streams on its own); `false` never shares;
   * or a {@link VaneShare} of your own. Only a streaming client shares.
   * @default true
   */
  readonly share?: boolean | VaneShare;
  /** Poll interval while polling (the fallback, or `stream: false`). @default 60000 */
  readonly ttlMs?: number;
  /** Bound on one sync or A/B request. @default 10000 */
  readonly timeoutMs?: number;
  /** Consecutive stream failures before the polling fallback. @default 3 */
  readonly streamErrorThreshold?: number;
  /** How long the fallback polls before the stream is tried again. @default 60000 */
  readonly streamCooldownMs?: number;
  /** How long a stream must stay open to reset the backoff. @default 60000 */
  readonly streamHealthyMs?: number;
  /** Silence on the stream treated as a transport error. @default 45000 */
  readonly streamIdleTimeoutMs?: number;
  /** First reconnect delay (doubling, jittered). @default 1000 */
  readonly backoffMinMs?: number;
  /** Longest reconnect delay. @default 30000 */
  readonly backoffMaxMs?: number;
  /** Cap on a `Retry-After` or a quarantine's `until`. @default 300000 */
  readonly maxRetryAfterMs?: number;
  /**
   * A page hidden this long closes its stream; once visible again the client
   * catches up and reopens it. `0` never pauses. @default 60000
   */
  readonly hiddenPauseMs?: number;
  /** The `fetch` to use. @default `globalThis.fetch` */
  readonly fetch?: typeof fetch;
  /** The visibility source. @default `globalThis.document` when there is one */
  readonly document?: VisibilitySource;
  /** Clock, for tests. @default `Date.now` */
  readonly now?: () => number;
  /** Randomness in [0, 1) for the backoff's jitter, for tests. @default `Math.random` */
  readonly random?: () => number;
}

/** The durations and thresholds, defaults applied. */
export interface Settings {
  readonly ttlMs: number;
  readonly timeoutMs: number;
  readonly streamErrorThreshold: number;
  readonly streamCooldownMs: number;
  readonly streamHealthyMs: number;
  readonly streamIdleTimeoutMs: number;
  readonly backoffMinMs: number;
  readonly backoffMaxMs: number;
  readonly maxRetryAfterMs: number;
  readonly hiddenPauseMs: number;
  readonly random: () => number;
}

/** The defaults, the same as `@vane/client`'s. */
export const DEFAULTS = {
  ttlMs: 60_000,
  timeoutMs: 10_000,
  streamErrorThreshold: 3,
  streamCooldownMs: 60_000,
  streamHealthyMs: 60_000,
  streamIdleTimeoutMs: 45_000,
  backoffMinMs: 1_000,
  backoffMaxMs: 30_000,
  maxRetryAfterMs: 300_000,
  hiddenPauseMs: 60_000,
} as const;
