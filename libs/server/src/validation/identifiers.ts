/** Schemas of names: flag, secret and config keys, service slugs and kinds, API keys. */
import * as v from 'valibot';
import { describeType, quote } from './json-type.js';
import { checkSchema } from './schema-check.js';

/** Flag, secret and config keys (PROTOCOL §4); also the pattern the seed JSON Schema publishes. */
export const KEY_PATTERN = /^[A-Za-z0-9._-]{1,256}$/;
/** Service kinds. */
export const SERVICE_KIND_PATTERN = /^[a-z0-9_-]{1,64}$/;
/** Service slugs: a DNS label. */
export const SLUG_PATTERN = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
/** API keys. */
export const API_KEY_PATTERN = /^(svs|svp)_[A-Za-z0-9_-]{1,200}$/;

/** Whether `key` is a valid flag or secret key: 1–256 characters of `[A-Za-z0-9._-]` (PROTOCOL §4). */
export function isValidKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

/**
 * A flag, secret or config key (all three share the charset and length of
 * PROTOCOL §4). A wrong key is described by its length, never echoed.
 */
export function keySchema(what: 'flag' | 'secret' | 'config') {
  return v.pipe(
    v.string((issue) => `a ${what} key must be a string, got ${describeType(issue.input)}`),
    v.regex(
      KEY_PATTERN,
      (issue) => `a ${what} key must be 1–256 characters of [A-Za-z0-9._-], got ${issue.input.length} characters`,
    ),
  );
}

/** Returns `value` when it is a valid flag, secret or config key (see {@link keySchema}). */
export function parseKey(value: unknown, path: string, what: 'flag' | 'secret' | 'config'): string {
  return checkSchema(keySchema(what), value, path);
}

/** Whether `slug` is a valid service slug: a DNS label of `[a-z0-9-]`, 1–63 characters. */
export function isValidSlug(slug: string): boolean {
  return SLUG_PATTERN.test(slug);
}

/** A service slug (see {@link isValidSlug}). */
export const slugSchema = v.pipe(
  v.string((issue) => `a service slug must be a string, got ${describeType(issue.input)}`),
  v.regex(
    SLUG_PATTERN,
    'a service slug must be 1–63 characters of [a-z0-9-] that start and end with a letter or digit',
  ),
);

/** Returns `value` when it is a valid service slug (see {@link isValidSlug}). */
export function parseSlug(value: unknown, path: string): string {
  return checkSchema(slugSchema, value, path);
}

/** A service kind: 1–64 characters of `[a-z0-9_-]` (`backend`, `frontend`, ...). */
export const serviceKindSchema = v.pipe(
  v.string((issue) => `a service kind must be a string, got ${describeType(issue.input)}`),
  v.regex(
    SERVICE_KIND_PATTERN,
    (issue) => `a service kind must be 1–64 characters of [a-z0-9_-], got ${quote(issue.input)}`,
  ),
);

/** Parses a service kind (see {@link serviceKindSchema}). */
export function parseServiceKind(value: unknown, path: string): string {
  return checkSchema(serviceKindSchema, value, path);
}

/**
 * An API key: `svs_` (secret) or `svp_` (public) followed by 1–200
 * characters of `[A-Za-z0-9_-]`. The key is never echoed.
 */
export const apiKeySchema = v.pipe(
  v.string((issue) => `an API key must be a string, got ${describeType(issue.input)}`),
  v.regex(API_KEY_PATTERN, 'an API key must be "svs_" or "svp_" followed by 1–200 characters of [A-Za-z0-9_-]'),
);

/** Returns `value` when it is an API key (see {@link apiKeySchema}). */
export function parseApiKey(value: unknown, path: string): string {
  return checkSchema(apiKeySchema, value, path);
}

/** The type of a key that {@link parseApiKey} accepted: `svs_…` is `secret`, anything else `public`. */
export function keyTypeOf(key: string): 'secret' | 'public' {
  return key.startsWith('svs_') ? 'secret' : 'public';
}
