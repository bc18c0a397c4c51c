/** Parsers of names: flag, secret and config keys, service slugs and kinds, API keys. */
import { describeType, quote } from './json-type.js';
import { fail } from './validation-error.js';

const KEY = /^[A-Za-z0-9._-]{1,256}$/;
const SERVICE_KIND = /^[a-z0-9_-]{1,64}$/;
const SLUG = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const API_KEY = /^(svs|svp)_[A-Za-z0-9_-]{1,200}$/;

/** Whether `key` is a valid flag or secret key: 1–256 characters of `[A-Za-z0-9._-]` (PROTOCOL §4). */
export function isValidKey(key: string): boolean {
  return KEY.test(key);
}

/**
 * Returns `value` when it is a valid flag, secret or config key (all three
 * share the charset and length of PROTOCOL §4).
 */
export function parseKey(value: unknown, path: string, what: 'flag' | 'secret' | 'config'): string {
  if (typeof value !== 'string') fail(path, `a ${what} key must be a string, got ${describeType(value)}`);
  if (!isValidKey(value)) {
    fail(path, `a ${what} key must be 1–256 characters of [A-Za-z0-9._-], got ${value.length} characters`);
  }
  return value;
}

/** Whether `slug` is a valid service slug: a DNS label of `[a-z0-9-]`, 1–63 characters. */
export function isValidSlug(slug: string): boolean {
  return SLUG.test(slug);
}

/** Returns `value` when it is a valid service slug (see {@link isValidSlug}). */
export function parseSlug(value: unknown, path: string): string {
  if (typeof value !== 'string') fail(path, `a service slug must be a string, got ${describeType(value)}`);
  if (!isValidSlug(value)) {
    fail(path, 'a service slug must be 1–63 characters of [a-z0-9-] that start and end with a letter or digit');
  }
  return value;
}

/** Parses a service kind: 1–64 characters of `[a-z0-9_-]` (`backend`, `frontend`, ...). */
export function parseServiceKind(value: unknown, path: string): string {
  if (typeof value !== 'string') fail(path, `a service kind must be a string, got ${describeType(value)}`);
  if (!SERVICE_KIND.test(value))
    fail(path, `a service kind must be 1–64 characters of [a-z0-9_-], got ${quote(value)}`);
  return value;
}

/**
 * Returns `value` when it is an API key: `svs_` (secret) or `svp_` (public)
 * followed by 1–200 characters of `[A-Za-z0-9_-]`. The key is never echoed.
 */
export function parseApiKey(value: unknown, path: string): string {
  if (typeof value !== 'string') fail(path, `an API key must be a string, got ${describeType(value)}`);
  if (!API_KEY.test(value)) {
    fail(path, 'an API key must be "svs_" or "svp_" followed by 1–200 characters of [A-Za-z0-9_-]');
  }
  return value;
}

/** The type of a key that {@link parseApiKey} accepted: `svs_…` is `secret`, anything else `public`. */
export function keyTypeOf(key: string): 'secret' | 'public' {
  return key.startsWith('svs_') ? 'secret' : 'public';
}
