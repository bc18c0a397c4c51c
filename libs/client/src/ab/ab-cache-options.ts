/**
 * The `abCache` option of the client: its shape, defaults and checks.
 *
 * @packageDocumentation
 */
import { InvalidArgumentError } from '../errors.js';

/**
 * Bounds of the cache of A/B answers. An answer is reused only for the same
 * flag, user id and attributes at the same revision of the service (PROTOCOL
 * §7: whatever can change an answer moves the revision); these bound how
 * long and how many answers are kept on top of that.
 */
export interface AbCacheOptions {
  /**
   * Longest an answer is reused, in milliseconds, even when the revision
   * does not move (against a service that would change answers without a
   * new revision, or a client whose stream is down and only polls).
   * @default 60000 (one minute)
   */
  maxAgeMs?: number;
  /**
   * Most answers kept (one per flag, user id and attributes); past it the
   * least recently used go first.
   * @default 10000
   */
  maxEntries?: number;
  /**
   * Most memory the answers may take, in bytes, as the cache estimates it
   * (360 bytes per answer plus 2 bytes per character of its flag key, user
   * id and attributes); past it the least recently used go first. About
   * 430 bytes for a flag, a user id and two short attributes, so the
   * default `maxEntries` binds first for such users.
   * @default 8388608 (8 MiB)
   */
  maxBytes?: number;
}

/** {@link AbCacheOptions} after defaults and checks. Internal. */
export interface ResolvedAbCache {
  readonly maxAgeMs: number;
  readonly maxEntries: number;
  readonly maxBytes: number;
}

/** Defaults of {@link AbCacheOptions}. */
export const AB_CACHE_DEFAULTS: Readonly<ResolvedAbCache> = Object.freeze({
  maxAgeMs: 60_000,
  maxEntries: 10_000,
  maxBytes: 8 * 1024 * 1024,
});

function positive(name: keyof AbCacheOptions, value: unknown, fallback: number, unit: string): number {
  if (value === undefined) return fallback;
  const integer = unit !== 'milliseconds';
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new InvalidArgumentError(
      `abCache.${name} must be a positive ${integer ? 'integer' : 'number'}${unit === '' ? '' : ` of ${unit}`}`,
    );
  }
  return value;
}

/**
 * Checks the option: `false` turns the cache off (`undefined` returned),
 * `true` or `undefined` takes the defaults.
 *
 * @throws InvalidArgumentError - naming the member at fault.
 */
export function resolveAbCache(value: AbCacheOptions | boolean | undefined): ResolvedAbCache | undefined {
  if (value === false) return undefined;
  if (value === undefined || value === true) return AB_CACHE_DEFAULTS;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new InvalidArgumentError('abCache must be false, true or an object such as { maxAgeMs: 60000 }');
  return {
    maxAgeMs: positive('maxAgeMs', value.maxAgeMs, AB_CACHE_DEFAULTS.maxAgeMs, 'milliseconds'),
    maxEntries: positive('maxEntries', value.maxEntries, AB_CACHE_DEFAULTS.maxEntries, ''),
    maxBytes: positive('maxBytes', value.maxBytes, AB_CACHE_DEFAULTS.maxBytes, 'bytes'),
  };
}
