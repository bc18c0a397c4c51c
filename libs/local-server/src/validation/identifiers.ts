/** Schemas of names: flag, secret and config keys, service slugs and kinds, API keys. */
import * as v from 'valibot';
import { describeType, quote } from './json-type.js';
import { checkSchema } from './schema-check.js';

const KEY = /^[A-Za-z0-9._-]{1,256}$/;
const SERVICE_KIND = /^[a-z0-9_-]{1,64}$/;
const SLUG = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const API_KEY = /^(svs|svp)_[A-Za-z0-9_-]{1,200}$/;

/** Whether `key` is a valid flag or secret key: 1–256 characters of `[A-Za-z0-9._-]` (PROTOCOL §4). */
export function isValidKey(key: string): boolean {
  return KEY.test(key);
}

/**
 * A flag, secret or config key (all three share the charset and length of
 * PROTOCOL §4). A wrong key is described by its length, never echoed.
 */
export function keySchema(what: 'flag' | 'secret' | 'config') {
  return v.pipe(
    v.string((issue) => `a ${what} key must be a string, got ${describeType(issue.input)}`),
    v.regex(
      KEY,
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
  return SLUG.test(slug);
}

/** A service slug (see {@link isValidSlug}). */
export const slugSchema = v.pipe(
  v.string((issue) => `a service slug must be a string, got ${describeType(issue.input)}`),
  v.regex(SLUG, 'a service slug must be 1–63 characters of [a-z0-9-] that start and end with a letter or digit'),
);

/** Returns `value` when it is a valid service slug (see {@link isValidSlug}). */
export function parseSlug(value: unknown, path: string): string {
  return checkSchema(slugSchema, value, path);
}

/** A service kind: 1–64 characters of `[a-z0-9_-]` (`backend`, `frontend`, ...). */
export const serviceKindSchema = v.pipe(
  v.string((issue) => `a service kind must be a string, got ${describeType(issue.input)}`),
  v.regex(SERVICE_KIND, (issue) => `a service kind must be 1–64 characters of [a-z0-9_-], got ${quote(issue.input)}`),
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
  v.regex(API_KEY, 'an API key must be "svs_" or "svp_" followed by 1–200 characters of [A-Za-z0-9_-]'),
);

/** Returns `value` when it is an API key (see {@link apiKeySchema}). */
export function parseApiKey(value: unknown, path: string): string {
  return checkSchema(apiKeySchema, value, path);
}

/** The type of a key that {@link parseApiKey} accepted: `svs_…` is `secret`, anything else `public`. */
export function keyTypeOf(key: string): 'secret' | 'public' {
  return key.startsWith('svs_') ? 'secret' : 'public';
}
