/**
 * The options of a {@link VaneBrowserClient} and their defaults.
 *
 * @packageDocumentation
 */
import { InvalidArgumentError, type AbContext, type VaneBootstrap } from '@vane/client-core';
import type { VaneAb, VanePlugin, VaneSharing, VaneStore } from './plugin.js';

/** The page's user, for A/B answers: a user id and string attributes (`null`/`undefined` are unset). */
export type VaneUser = AbContext;

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
  /** The page's user, for A/B answers (with the `ab` plug-in; refused without it). @default none */
  readonly user?: VaneUser;
  /**
   * The last-known-good copy: `lastKnownGood()` of `@vane/browser/storage`
   * keeps the last values in `localStorage`, so that a reload while the
   * service is down shows them (marked `stale`). @default none
   */
  readonly lastKnownGood?: VanePlugin<VaneStore>;
  /** Live changes over the stream; `false` polls every `ttlMs` instead. @default true */
  readonly stream?: boolean;
  /**
   * One stream for every client of the same base URL and key in the page and
   * the other tabs of its origin: `sharedStream()` of `@vane/browser/share`.
   * Only a streaming client shares. @default none (each client streams on its own)
   */
  readonly share?: VanePlugin<VaneSharing | undefined>;
  /**
   * A/B answers for the page's user (`abFlag`, `evaluateAb`, `setUser`):
   * `abTesting()` of `@vane/browser/ab`. @default none (those methods throw)
   */
  readonly ab?: VanePlugin<VaneAb>;
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

/** The durations and thresholds of a client, defaults applied (see the options of the same names). */
export interface VaneBrowserSettings {
  /** Poll interval while polling, in milliseconds. */
  readonly ttlMs: number;
  /** Bound on one sync or A/B request, in milliseconds. */
  readonly timeoutMs: number;
  /** Consecutive stream failures before the polling fallback. */
  readonly streamErrorThreshold: number;
  /** How long the fallback polls before the stream is tried again, in milliseconds. */
  readonly streamCooldownMs: number;
  /** How long a stream must stay open to reset the backoff, in milliseconds. */
  readonly streamHealthyMs: number;
  /** Silence on the stream treated as a transport error, in milliseconds. */
  readonly streamIdleTimeoutMs: number;
  /** First reconnect delay, in milliseconds. */
  readonly backoffMinMs: number;
  /** Longest reconnect delay, in milliseconds. */
  readonly backoffMaxMs: number;
  /** Cap on a `Retry-After` or a quarantine's `until`, in milliseconds. */
  readonly maxRetryAfterMs: number;
  /** How long a hidden page keeps its stream, in milliseconds (`0`: always). */
  readonly hiddenPauseMs: number;
  /** Randomness in [0, 1) for the backoff's jitter. */
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

/**
 * The durations and thresholds of `options`, defaults applied.
 *
 * @throws InvalidArgumentError - naming the first that is not a number at or above its minimum.
 */
export function checkSettings(options: VaneBrowserOptions): VaneBrowserSettings {
  const settings: Record<string, unknown> = { random: options.random ?? Math.random };
  for (const name of Object.keys(DEFAULTS) as (keyof typeof DEFAULTS)[]) {
    const value = options[name] ?? DEFAULTS[name];
    const min = name === 'streamErrorThreshold' ? 1 : 0;
    if (typeof value !== 'number' || !(value >= min))
      throw new InvalidArgumentError(`${name} must be a number >= ${min}`);
    settings[name] = value;
  }
  return settings as unknown as VaneBrowserSettings;
}
