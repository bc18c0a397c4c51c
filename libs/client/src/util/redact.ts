/**
 * Redaction of credentials in anything the client logs or raises.
 *
 * @packageDocumentation
 */

import { redactKey } from '@vane/common';

export { redactKey };

const KEY_PATTERN = /\b(sv[sp]_)[A-Za-z0-9._~+/=-]+/g;
const BEARER_PATTERN = /(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi;
// A JWT (session token, platform identity token) or base64 of a JSON object (the signed AWS
// request sent as a platform token): both start with `eyJ`, the encoding of `{"`.
const TOKEN_PATTERN = /\beyJ[A-Za-z0-9._~+/=-]{8,}/g;

/**
 * Replaces every API key (`svs_…`, `svp_…`), bearer token and JWT (or other
 * base64 JSON token) found in a free-form text by its redacted form. Used on every message that comes from
 * outside the client (network errors, server messages) before it is logged
 * or put in an error.
 *
 * @param text - any text.
 * @returns the text with credentials redacted.
 */
export function redactText(text: string): string {
  return text
    .replace(KEY_PATTERN, (match) => redactKey(match))
    .replace(BEARER_PATTERN, (_m, head: string) => `${head}[redacted]`)
    .replace(TOKEN_PATTERN, '[redacted token]');
}

/**
 * Replaces every occurrence of the given values in a text by `[redacted]`
 * (longest first, so a value that contains another is removed whole). Used
 * on messages of errors thrown by the app's own code (a live resource's
 * `create`), which may quote the secret they were given.
 *
 * @param text - any text.
 * @param values - the secret values to remove; empty strings are ignored.
 * @returns the text without any of `values`.
 */
export function redactValues(text: string, values: readonly string[]): string {
  let out = text;
  for (const value of [...values].filter((v) => v !== '').sort((a, b) => b.length - a.length))
    out = out.split(value).join('[redacted]');
  return out;
}

/**
 * Builds a safe stand-in for an error coming from the network stack (or from
 * the app's code): the same `name` and `code`, a redacted `message`, and no
 * other property (undici errors can hold sockets, request options and
 * headers). The cause chain is followed and sanitised the same way, to a
 * bounded depth.
 *
 * @param error - anything thrown.
 * @param values - secret values to remove from every message as well (see {@link redactValues}).
 * @returns a plain `Error` safe to attach as `cause` or to log.
 */
export function sanitizeCause(error: unknown, values: readonly string[] = [], depth = 0): Error {
  const clean = (text: string): string => redactValues(redactText(text), values);
  if (!(error instanceof Error)) return new Error(clean(String(error)));
  const copy = new Error(
    clean(error.message),
    depth < 3 && error.cause !== undefined ? { cause: sanitizeCause(error.cause, values, depth + 1) } : undefined,
  );
  copy.name = clean(error.name);
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') (copy as Error & { code?: string }).code = clean(code);
  copy.stack = `${copy.name}: ${copy.message}`;
  return copy;
}
