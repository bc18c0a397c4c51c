import type { VaneClientOptions } from '@vane/client';
import { InvalidArgumentError } from '@vane/client/errors';

/**
 * Which boolean flags are evaluated per user through the A/B add-on when the
 * evaluation context carries a `targetingKey`: `'all'`, `'none'`, or a
 * predicate on the flag key.
 */
export type AbFlagSelector = 'all' | 'none' | ((flagKey: string) => boolean);

/** What the provider itself adds to the client: how A/B flags are chosen. */
export interface VaneProviderSettings {
  /**
   * Flags evaluated per user (`evaluate-ab`, one network call per context
   * and event-loop turn) when the context has a `targetingKey`. Every other
   * evaluation reads the in-memory cache. `'none'` disables A/B entirely.
   * @default 'none'
   */
  readonly abFlags?: AbFlagSelector;
}

/**
 * Options of a provider that creates (and owns) its client: every option of
 * `@vane/client` (`baseUrl`, `apiKey`, `ttlMs`, `stream`…, with the client's
 * defaults) plus {@link VaneProviderSettings}.
 */
export interface VaneProviderOptions extends VaneClientOptions, VaneProviderSettings {}

/**
 * Turns the `abFlags` option into a predicate.
 * @throws InvalidArgumentError - for anything but `'all'`, `'none'` or a function.
 */
export function abFlagPredicate(selector: AbFlagSelector | undefined): (flagKey: string) => boolean {
  if (selector === undefined || selector === 'none') return () => false;
  if (selector === 'all') return () => true;
  if (typeof selector === 'function') return selector;
  throw new InvalidArgumentError(
    `abFlags must be 'all', 'none' or a function of the flag key, got ${JSON.stringify(selector) ?? typeof selector}`,
  );
}
